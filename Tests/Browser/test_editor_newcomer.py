"""The editor as issue 25's newcomer met it, in a real browser (chromium through Selenium):

- after a reload the page says whether the server's chain differs from the file, and warns
  before leaving when it does;
- a 1:1 view of both previews, of the same region, rendered at full resolution by the engine
  for that region, checked against `filterchain apply` on the full-size image;
- sliders: wide, arrow keys with and without Shift, the wheel over a focused slider, drags
  with and without Shift;
- the small things: the size shown exactly, messages that cite the step and not the page's
  JSON, Save that leaves a hand-written file alone when nothing changed and says that it
  rewrites one, and the layout at 420 px.

With FILTERCHAIN_SHOTS set to a folder, the tests save there the screenshots they look at.
Run from the package root after `swift build`: python3 -m pytest Tests/Browser -q
"""

import base64
import io
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request

import numpy
import pytest
from PIL import Image
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from test_editor import BIN, ROOT, browser, editor, previews, settled_previews, viewport, wait  # noqa: F401

SHOTS = os.environ.get("FILTERCHAIN_SHOTS")


def shot(driver, name):
    if SHOTS:
        os.makedirs(SHOTS, exist_ok=True)
        driver.save_screenshot(os.path.join(SHOTS, name + ".png"))


def api(editor, method, path, body=None):
    base, token = editor["url"].split("/?token=")
    request = urllib.request.Request(base + path, method=method, data=body, headers={"X-Filterchain-Token": token})
    with urllib.request.urlopen(request) as response:
        return response.status, dict(response.headers), response.read()


def status_text(driver):
    return driver.find_element(By.ID, "status").text


def dirty_shown(driver):
    return driver.find_element(By.ID, "dirty").is_displayed()


LEAVE = """
const e = new Event("beforeunload", { cancelable: true });
window.dispatchEvent(e);
return e.defaultPrevented;
"""


def leave_warns(driver):
    """Whether the page asks before it is left (its beforeunload handler cancels the event)."""
    return driver.execute_script(LEAVE)


def page_value(driver, step, name):
    return driver.execute_script("return state.chain.filters[arguments[0]].parameters[arguments[1]]", step, name)


def server_value(editor, step, name):
    _, _, body = api(editor, "GET", "/api/chain")
    return json.loads(body)["filters"][step]["parameters"][name]


@pytest.fixture
def big_editor():
    """The editor on look.json and a 2400 x 1600 image (coffee.png made larger by filterchain):
    its previews are scaled to 1024 x 683, so a 1:1 view shows what they cannot."""
    folder = tempfile.mkdtemp(prefix="filterchain-browser-big-")
    chain = os.path.join(folder, "look.json")
    shutil.copy(os.path.join(ROOT, "samples", "chains", "look.json"), chain)
    image = os.path.join(folder, "big.png")
    made = subprocess.run([os.path.join(BIN, "filterchain"), "apply", "--step", "resize width=2400",
                           os.path.join(ROOT, "samples", "coffee.png"), image], capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    process = subprocess.Popen([os.path.join(BIN, "filterchain"), "edit", chain, image, "--no-browser"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    url = process.stdout.readline().strip()
    assert url.startswith("http://127.0.0.1:"), process.stderr.read()
    yield {"url": url, "chain": chain, "image": image, "folder": folder, "process": process}
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=20) == 0
    shutil.rmtree(folder, ignore_errors=True)


# ---- 1. The page after a reload ----

def test_a_reload_shows_unsaved_edits_and_warns_before_leaving(editor, browser):
    with open(editor["chain"], "rb") as f:
        original = f.read()
    browser.get(editor["url"])
    wait(browser, lambda d: all(previews(d)), "the previews never appeared")
    assert not dirty_shown(browser) and not leave_warns(browser)
    assert status_text(browser).startswith("loaded ")

    # Two coarse steps of saturation, from the keyboard.
    slider = browser.find_element(By.CSS_SELECTOR, '#param-list input[type=range][data-param="saturation"]')
    browser.execute_script("arguments[0].focus()", slider)
    coarse = float(slider.get_attribute("data-coarse"))
    slider.send_keys(Keys.ARROW_RIGHT)
    slider.send_keys(Keys.ARROW_RIGHT)
    edited = round(1.2 + 2 * coarse, 6)
    wait(browser, lambda d: json.loads(api(editor, "GET", "/api/status")[2])["unsaved"], "the server never took the edit")
    wait(browser, lambda d: dirty_shown(d) and leave_warns(d), "the page does not show the edit as unsaved")
    assert server_value(editor, 0, "saturation") == pytest.approx(edited, abs=1e-9)

    # Undone back to the file's chain (keys pressed in a row are one undo entry), the page
    # says so, and never "saved" (nothing was).
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.CONTROL, "z")
    wait(browser, lambda d: status_text(d) == "no unsaved edits: the chain is the file's" and not dirty_shown(d),
         "undone to the file's chain, the page still shows edits")
    assert page_value(browser, 0, "saturation") == pytest.approx(1.2)
    assert not leave_warns(browser)
    body.send_keys(Keys.CONTROL, Keys.SHIFT, "z")
    wait(browser, lambda d: dirty_shown(d) and status_text(d) == "edited; not saved"
         and json.loads(api(editor, "GET", "/api/status")[2])["unsaved"], "redo")

    # Reload the page: the server still holds the edit, and the page says so.
    browser.refresh()
    wait(browser, lambda d: all(previews(d)), "the previews never appeared after the reload")
    wait(browser, lambda d: status_text(d).startswith("unsaved edits: the editor holds changes that "), "no word of the edits")
    assert dirty_shown(browser)
    assert browser.find_element(By.ID, "save").text == "Save*"
    assert browser.title.startswith("* ")
    assert browser.find_element(By.ID, "revert").is_displayed()
    assert leave_warns(browser)
    assert page_value(browser, 0, "saturation") == pytest.approx(edited)
    with open(editor["chain"], "rb") as f:
        assert f.read() == original, "the file changed without Save"
    shot(browser, "unsaved-after-reload")

    # Save: clean, and still clean after another reload.
    browser.find_element(By.ID, "save").click()
    wait(browser, lambda d: status_text(d).startswith("saved to"), "save did not finish")
    assert not dirty_shown(browser) and not leave_warns(browser)
    with open(editor["chain"]) as f:
        assert json.load(f)["filters"][0]["parameters"]["saturation"] == pytest.approx(edited)
    browser.refresh()
    wait(browser, lambda d: status_text(d).startswith("loaded "), "not loaded")
    assert not dirty_shown(browser) and not leave_warns(browser)
    assert browser.find_element(By.ID, "save").text == "Save"


# ---- 2. The 1:1 view ----

FETCH_PNG = """
const done = arguments[arguments.length - 1];
const img = document.getElementById(arguments[0]);
fetch(img.src).then(r => r.arrayBuffer()).then(b => {
  let s = ""; const u = new Uint8Array(b);
  for (let i = 0; i < u.length; i += 0x8000) s += String.fromCharCode.apply(null, u.subarray(i, i + 0x8000));
  done(btoa(s));
});
"""


def zoom_png(driver, which):
    return Image.open(io.BytesIO(base64.b64decode(driver.execute_async_script(FETCH_PNG, which + "-zoom")))).convert("RGB")


def zoom_region(driver, which):
    value = driver.find_element(By.ID, which + "-zoom").get_attribute("data-region")
    return [int(v) for v in value.split(",")] if value else None


def frame_inside(driver, which):
    return driver.execute_script("""
        const f = document.getElementById(arguments[0] + "-zoom").parentElement, s = getComputedStyle(f);
        return [Math.floor(f.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight)),
                Math.floor(f.clientHeight - parseFloat(s.paddingTop) - parseFloat(s.paddingBottom))];""", which)


def zoom_loaded(driver):
    return all(driver.execute_script(
        "const i = document.getElementById(arguments[0]); return !i.hidden && i.complete && i.naturalWidth > 0 && !!i.dataset.region",
        w + "-zoom") for w in ("left", "right"))


def test_one_to_one_view_renders_the_same_region_of_both_previews_at_full_resolution(big_editor, browser):
    viewport(browser, 1400, 850)
    folder = big_editor["folder"]
    filterchain = os.path.join(BIN, "filterchain")
    # The references: the command line's full-size renders of the whole chain and of step 1.
    reference = subprocess.run([filterchain, "apply", big_editor["chain"], big_editor["image"], os.path.join(folder, "full.png"),
                                "--preview", "1", "--preview-output", os.path.join(folder, "step1.png")],
                               capture_output=True, text=True)
    assert reference.returncode == 0, reference.stderr
    full = numpy.asarray(Image.open(os.path.join(folder, "full.png")).convert("RGB"), dtype=int)
    step1 = numpy.asarray(Image.open(os.path.join(folder, "step1.png")).convert("RGB"), dtype=int)
    assert full.shape == (1600, 2400, 3)

    browser.get(big_editor["url"])
    wait(browser, lambda d: all(previews(d)), "the previews never appeared")
    # The previews are scaled, the sizes shown are the full size, exactly.
    assert previews(browser)[1].startswith("1024x683:")
    wait(browser, lambda d: d.find_element(By.ID, "right-size").text == "2400×1600"
         and d.find_element(By.ID, "left-size").text == "2400×1600", "the size is not shown exactly")
    shot(browser, "wide")

    # A click on the final preview at (30%, 40%) shows both at 1:1 around that point.
    right = browser.find_element(By.ID, "right")
    w, h = right.size["width"], right.size["height"]
    ActionChains(browser).move_to_element_with_offset(right, int(0.3 * w - w / 2), int(0.4 * h - h / 2)).click().perform()
    wait(browser, zoom_loaded, "the 1:1 view never appeared")
    assert not browser.find_element(By.ID, "right").is_displayed()
    left_region, right_region = zoom_region(browser, "left"), zoom_region(browser, "right")
    assert left_region == right_region, "both previews show the same region"
    x, y, rw, rh = right_region
    assert [rw, rh] == frame_inside(browser, "right"), "one image pixel a screen pixel, the whole frame"
    # To a screen pixel of the preview clicked (the previews sit above the graph, smaller).
    tolerance = max(3, 2400 / w + 1)
    assert abs(x + rw / 2 - 0.3 * 2400) <= tolerance and abs(y + rh / 2 - 0.4 * 1600) <= tolerance, right_region
    # The engine rendered a crop (look.json's steps reach a few pixels), not the whole image.
    assert browser.find_element(By.ID, "right-zoom").get_attribute("data-rendered") == "crop"
    # Its pixels are the full-size render's, there.
    for which, expected in (("right", full), ("left", step1)):
        got = numpy.asarray(zoom_png(browser, which), dtype=int)
        assert got.shape == (rh, rw, 3)
        difference = numpy.abs(got - expected[y:y + rh, x:x + rw])
        assert difference.max() <= 1, (which, difference.max())
    shot(browser, "one-to-one")

    # A drag moves both regions with the pointer.
    ActionChains(browser).click_and_hold(browser.find_element(By.ID, "right-zoom")).move_by_offset(-80, -40).release().perform()
    wait(browser, lambda d: (zoom_region(d, "right") or [0])[0] != x and zoom_loaded(d), "the drag did not move the region")
    moved = zoom_region(browser, "right")
    assert abs(moved[0] - (x + 80)) <= 2 and abs(moved[1] - (y + 40)) <= 2, (right_region, moved)
    wait(browser, lambda d: zoom_region(d, "left") == moved, "the left pane did not follow")
    got = numpy.asarray(zoom_png(browser, "right"), dtype=int)
    assert numpy.abs(got - full[moved[1]:moved[1] + rh, moved[0]:moved[0] + rw]).max() <= 1

    # An edit re-renders the region.
    slider = browser.find_element(By.CSS_SELECTOR, '#param-list input[type=range][data-param="saturation"]')
    browser.execute_script("arguments[0].focus()", slider)
    before = zoom_png(browser, "left")
    slider.send_keys(Keys.PAGE_DOWN)
    wait(browser, lambda d: zoom_loaded(d) and zoom_png(d, "left").tobytes() != before.tobytes(), "the region did not follow the edit")

    # Escape: the fitted previews again; Z: 1:1 again.
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
    wait(browser, lambda d: d.find_element(By.ID, "right").is_displayed() and not d.find_element(By.ID, "right-zoom").is_displayed(),
         "Escape did not leave the 1:1 view")
    browser.find_element(By.TAG_NAME, "body").send_keys("z")
    wait(browser, zoom_loaded, "Z did not show the 1:1 view")
    browser.find_element(By.ID, "right-zoom-button").click()
    wait(browser, lambda d: d.find_element(By.ID, "right").is_displayed(), "the 1:1 button did not leave it")


# ---- 3. Sliders ----

def test_sliders_are_wide_and_take_fine_steps(editor, browser):
    browser.get(editor["url"])
    wait(browser, lambda d: all(previews(d)), "the previews never appeared")
    slider = browser.find_element(By.CSS_SELECTOR, '#param-list input[type=range][data-param="saturation"]')
    width = slider.size["width"]
    assert width >= 300, width
    coarse, fine = float(slider.get_attribute("data-coarse")), float(slider.get_attribute("data-fine"))
    assert (coarse, fine) == (0.02, 0.002)  # 0...4: about 1/200 of the span, and a tenth of that

    def value():
        return page_value(browser, 0, "saturation")

    browser.execute_script("arguments[0].focus()", slider)
    slider.send_keys(Keys.ARROW_RIGHT)
    assert value() == pytest.approx(1.22)
    slider.send_keys(Keys.SHIFT, Keys.ARROW_RIGHT)
    assert value() == pytest.approx(1.222)
    slider.send_keys(Keys.ARROW_LEFT)
    assert value() == pytest.approx(1.202)
    slider.send_keys(Keys.SHIFT, Keys.ARROW_DOWN)
    assert value() == pytest.approx(1.2)

    # The wheel, over the focused slider: a notch is a coarse step, with Shift a fine one.
    wheel = """
        const e = new WheelEvent("wheel", { deltaY: arguments[1], shiftKey: arguments[2], bubbles: true, cancelable: true });
        arguments[0].dispatchEvent(e);
        return e.defaultPrevented;"""
    assert browser.execute_script(wheel, slider, -100, False)
    assert value() == pytest.approx(1.22)
    assert browser.execute_script(wheel, slider, 100, True)
    assert value() == pytest.approx(1.218)
    # Not focused, the wheel scrolls the page as ever.
    browser.execute_script("arguments[0].blur()", slider)
    assert not browser.execute_script(wheel, slider, -100, False)
    assert value() == pytest.approx(1.218)

    # A drag follows the pointer; with Shift it moves a tenth as far.
    per_pixel = 4 / (width - 16)
    ActionChains(browser).move_to_element(slider).click_and_hold().perform()
    start = value()
    assert start == pytest.approx(2, abs=2 * per_pixel)  # the middle of 0...4
    ActionChains(browser).move_by_offset(60, 0).release().perform()
    assert value() - start == pytest.approx(60 * per_pixel, abs=2 * per_pixel)
    before = value()
    ActionChains(browser).key_down(Keys.SHIFT).move_to_element(slider).click_and_hold() \
        .move_by_offset(60, 0).release().key_up(Keys.SHIFT).perform()
    assert value() - before == pytest.approx(60 * per_pixel / 10, abs=0.5 * per_pixel)
    # The server has what the page shows.
    wait(browser, lambda d: server_value(editor, 0, "saturation") == pytest.approx(value(), abs=1e-9), "the server lags")


# ---- 4. The small things ----

def test_messages_cite_the_step_and_save_leaves_a_hand_written_file_alone(editor, browser):
    with open(editor["chain"], "rb") as f:
        original = f.read()
    browser.get(editor["url"])
    wait(browser, lambda d: all(previews(d)), "the previews never appeared")
    # look.json is written by hand (one step a line): the page says what Save does with it.
    assert browser.find_element(By.ID, "rewrite").is_displayed()
    # In neutral words: what Save will do, not a judgement of the file.
    assert browser.find_element(By.ID, "rewrite").text == \
        "formatted by hand: Save keeps its formatting, editing in what changed (a step added or removed: filterchain's standard formatting)"
    assert "Save keeps its spacing and key order" in browser.find_element(By.ID, "save").get_attribute("title")
    # Save with nothing changed does not rewrite it.
    browser.find_element(By.ID, "save").click()
    wait(browser, lambda d: status_text(d).startswith("nothing to save: "), "Save said nothing")
    with open(editor["chain"], "rb") as f:
        assert f.read() == original

    # A value out of range: the message names the step and the parameter, not a line of the
    # page's own JSON.
    field = browser.find_element(By.ID, "param-saturation")
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys("9", Keys.TAB)
    wait(browser, lambda d: "saturation: 9 is out of range" in status_text(d), "no message")
    text = status_text(browser)
    assert text.startswith("step 1 (colour): saturation: 9 is out of range; allowed 0...4"), text
    assert "line" not in text and "column" not in text
    field = browser.find_element(By.ID, "param-saturation")
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys("1.5", Keys.TAB)
    wait(browser, lambda d: status_text(d) == "edited; not saved", "the mended value was not taken")
    browser.find_element(By.ID, "save").click()
    wait(browser, lambda d: status_text(d).startswith("saved to"), "save did not finish")
    with open(editor["chain"], "rb") as f:
        saved = f.read()
    assert json.loads(saved)["filters"][0]["parameters"]["saturation"] == 1.5
    # The file's own formatting is kept: its text is the original with the one value's text
    # changed, so the page still says it is formatted by hand.
    before = json.loads(original)["filters"][0]["parameters"]["saturation"]
    assert saved == original.replace(b'"saturation": ' + json.dumps(before).encode(), b'"saturation": 1.5', 1), saved
    assert browser.find_element(By.ID, "rewrite").is_displayed()


def test_the_layout_at_420_pixels(editor, browser):
    viewport(browser, 420, 720)
    browser.get(editor["url"])
    wait(browser, lambda d: all(previews(d)), "the previews never appeared")
    time.sleep(0.3)
    shot(browser, "narrow")
    # The header: the buttons on one row, the status on its own, no more than a few rows.
    tops = {browser.find_element(By.ID, b).location["y"] for b in ("undo", "redo", "save")}
    assert len(tops) == 1, tops
    header = browser.find_element(By.CSS_SELECTOR, "header.bar")
    assert header.size["height"] <= 150, header.size
    status = browser.find_element(By.ID, "status")
    assert status.size["width"] >= 380
    # The previews come right under the header, side by side...
    left, right = browser.find_element(By.ID, "left"), browser.find_element(By.ID, "right")
    assert left.location["y"] < header.size["height"] + 80
    assert left.location["y"] == right.location["y"] and left.location["x"] < right.location["x"]
    # ...and stay in view while the controls scroll under them.
    browser.execute_script("window.scrollTo(0, document.body.scrollHeight)")
    time.sleep(0.3)
    shot(browser, "narrow-scrolled")
    in_view = """
        const r = document.getElementById(arguments[0]).getBoundingClientRect();
        return r.top >= 0 && r.bottom <= window.innerHeight && r.height > 50;"""
    assert browser.execute_script("return window.scrollY") > 100
    assert browser.execute_script(in_view, "left") and browser.execute_script(in_view, "right")
    contrast = browser.find_element(By.CSS_SELECTOR, '#param-list input[type=range][data-param="contrast"]')
    assert browser.execute_script("const r = arguments[0].getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight", contrast)
