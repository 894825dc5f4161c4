"""The editor in a real browser: Debian's chromium and chromium-driver through Selenium.

Loads the page, selects step 2, changes one of its parameters through its control (a point
of the tone curve, nudged with the arrow keys as a keyboard user would), waits until both
previews have changed pixels, saves, and checks the chain file on disk: the parameter
changed, the ids are the same, and `filterchain validate` passes. With FILTERCHAIN_SCREENSHOT
set to a path, saves there the screenshot that README shows (samples/editor.png, from a
release build: FILTERCHAIN_BIN=.build/release); FILTERCHAIN_NUMBERS_SCREENSHOT, the one of
a variable's number node in the graph and the variables panel (samples/editor-numbers.png),
from the number node's test; FILTERCHAIN_VARIABLES_SCREENSHOT, the panel's slider test.

Run from the package root after `swift build`: python3 -m pytest Tests/Browser -q
FILTERCHAIN_BIN overrides the folder of the built programs (default .build/debug).
"""

import json
import os
import shutil
import signal
import subprocess
import tempfile
import time

import pytest
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("FILTERCHAIN_BIN", os.path.join(ROOT, ".build", "debug"))
TIMEOUT = 60

# A checksum of an <img>'s pixels, drawn into a canvas (same-origin blob URLs, so readable).
PIXELS = """
const img = document.getElementById(arguments[0]);
if (!img.complete || img.naturalWidth === 0) return null;
const c = document.createElement('canvas');
c.width = img.naturalWidth; c.height = img.naturalHeight;
const g = c.getContext('2d');
g.drawImage(img, 0, 0);
const d = g.getImageData(0, 0, c.width, c.height).data;
let h = 2166136261;
for (let i = 0; i < d.length; i += 1) { h ^= d[i]; h = Math.imul(h, 16777619) >>> 0; }
return c.width + 'x' + c.height + ':' + h;
"""


def running_editor(chain_name, image_name="coffee.png", extra=()):
    folder = tempfile.mkdtemp(prefix="filterchain-browser-")
    chain = os.path.join(folder, "look.json")
    shutil.copy(os.path.join(ROOT, "samples", "chains", chain_name), chain)
    image = os.path.join(ROOT, "samples", image_name)
    process = subprocess.Popen(
        [os.path.join(BIN, "filterchain"), "edit", chain, image, "--no-browser",
         *[a.replace("FOLDER", folder) for a in extra]],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    url = process.stdout.readline().strip()
    assert url.startswith("http://127.0.0.1:") and "?token=" in url, (url, process.stderr.read())
    yield {"url": url, "chain": chain, "process": process, "folder": folder, "image": image}
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        # SIGTERM ends the editor with status 0.
        assert process.wait(timeout=20) == 0
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def editor():
    yield from running_editor("look.json")


@pytest.fixture
def strength_editor():
    """samples/chains/look-strength.json: a variable `strength` (0...1) that colour,
    contrast and a vignette read in expressions, and a blur of 0.002 x the short side."""
    yield from running_editor("look-strength.json")


@pytest.fixture
def browser():
    options = webdriver.ChromeOptions()
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,800", "--hide-scrollbars", "--force-device-scale-factor=1"]:
        options.add_argument(argument)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium:
        options.binary_location = chromium
    driver_path = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    viewport(driver, 1280, 800)
    yield driver
    driver.quit()


def viewport(driver, width, height):
    """The page's own size (a window's size includes the browser's frame)."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})


def previews(driver):
    return (driver.execute_script(PIXELS, "left"), driver.execute_script(PIXELS, "right"))


def wait(driver, condition, message):
    # An element the page replaced while the condition read it (a list drawn again) is
    # asked again at the next poll, as a condition not yet met.
    return WebDriverWait(driver, TIMEOUT, poll_frequency=0.1,
                         ignored_exceptions=(StaleElementReferenceException,)).until(lambda d: condition(d), message)


def settled_previews(driver, quiet=1.0):
    """Both previews, once present and unchanged for `quiet` seconds (a loaded machine can
    deliver a selected step's preview well after the click)."""
    seen = {"value": None, "since": 0.0}

    def check(d):
        p = previews(d)
        now = time.monotonic()
        if not all(p) or p != seen["value"]:
            seen["value"], seen["since"] = p, now
            return None
        return p if now - seen["since"] >= quiet else None
    return wait(driver, check, "previews did not settle")


def test_edit_a_parameter_and_save(editor, browser):
    with open(editor["chain"]) as f:
        before = json.load(f)
    ids_before = [step["id"] for step in before["filters"]]

    # Load the page: both previews appear.
    browser.get(editor["url"])
    wait(browser, lambda d: all(previews(d)), "the previews never appeared")

    # Select step 2 (the tone curve); the left preview becomes "after step 2".
    browser.find_element(By.ID, "view-steps").click()  # the step list, beside the graph
    browser.find_element(By.CSS_SELECTOR, '#steps li[data-index="1"] .label').click()
    wait(browser, lambda d: d.find_element(By.ID, "left-label").text.startswith("after step 2"), "step 2 not selected")
    wait(browser, lambda d: d.find_element(By.ID, "left").get_attribute("src")
         and d.find_element(By.CSS_SELECTOR, "#param-list svg.curve"), "no curve editor")
    settled = settled_previews(browser)

    # Change a parameter through its control: point 2 of the curve, up by 0.05 (five arrows).
    point = browser.find_element(By.CSS_SELECTOR, '#param-list svg.curve circle[data-index="1"]')
    point.click()
    for _ in range(5):
        browser.switch_to.active_element.send_keys(Keys.ARROW_UP)
        time.sleep(0.05)

    # Both previews change pixels.
    wait(browser, lambda d: all(a is not None and a != b for a, b in zip(previews(d), settled)),
         "the previews did not both change")
    time.sleep(0.3)
    shot = os.environ.get("FILTERCHAIN_SCREENSHOT")  # README's samples/editor.png
    if shot:
        browser.save_screenshot(shot)
    narrow = os.environ.get("FILTERCHAIN_NARROW_SCREENSHOT")
    if narrow:
        viewport(browser, 420, 1400)
        time.sleep(0.5)
        browser.save_screenshot(narrow)
        viewport(browser, 1280, 800)

    # Save, and check the file on disk.
    browser.find_element(By.ID, "save").click()
    wait(browser, lambda d: d.find_element(By.ID, "status").text.startswith("saved to"), "save did not finish")
    with open(editor["chain"]) as f:
        after = json.load(f)
    assert [step["id"] for step in after["filters"]] == ids_before
    points = after["filters"][1]["parameters"]["points"]
    assert points[1][1] == pytest.approx(before["filters"][1]["parameters"]["points"][1][1] + 0.05, abs=1e-9)
    assert points[1][0] == before["filters"][1]["parameters"]["points"][1][0]
    assert after["filters"][0]["parameters"] == before["filters"][0]["parameters"]
    assert after["filters"][2]["parameters"] == before["filters"][2]["parameters"]
    validate = subprocess.run([os.path.join(BIN, "filterchain"), "validate", editor["chain"]],
                              capture_output=True, text=True)
    assert validate.returncode == 0, validate.stderr


def test_the_curve_editor_draws_the_filters_curve(editor, browser):
    """The page's curve (curve.js) against scipy's PchipInterpolator, which filters.md names as
    the tone curve's definition, and straight lines for `linear`."""
    from scipy.interpolate import PchipInterpolator
    import numpy

    browser.get(editor["url"])
    wait(browser, lambda d: d.execute_script("return typeof curveValue === 'function'"), "no curve.js")
    cases = [
        [[0, 0], [0.25, 0.2], [0.5, 0.5], [0.75, 0.82], [1, 1]],
        [[0, 0.1], [0.3, 0.9], [0.6, 0.2], [1, 0.8]],
        [[0.1, 0.2], [0.9, 0.7]],
        [[0, 1], [0.2, 0.95], [0.4, 0.3], [0.5, 0.28], [0.9, 0.0]],
    ]
    xs = [i / 64 for i in range(65)]
    for points in cases:
        x = [p[0] for p in points]
        y = [p[1] for p in points]
        pchip = PchipInterpolator(x, y)
        got = browser.execute_script(
            "return arguments[1].map(v => curveValue(arguments[0], 'monotone', v))", points, xs)
        want = [float(pchip(min(max(v, x[0]), x[-1]))) for v in xs]
        assert numpy.allclose(got, want, rtol=0, atol=1e-9), (points, got, want)
        lines = browser.execute_script(
            "return arguments[1].map(v => curveValue(arguments[0], 'linear', v))", points, xs)
        assert numpy.allclose(lines, numpy.interp(xs, x, y), rtol=0, atol=1e-12)


def test_a_kind_the_page_does_not_know_gets_a_json_field_checked_by_the_server(editor, browser):
    """New parameter kinds must never break the page: one it does not know (here a made-up
    colour parameter added to the catalogue the page holds) is a JSON text field, and the
    server's verdict appears at that field."""
    browser.get(editor["url"])
    wait(browser, lambda d: all(previews(d)), "the previews never appeared")
    browser.execute_script("""
        state.filters.find(f => f.type === 'colorControls').parameters.push(
            {name: 'tint', kind: 'colour', default: [1, 1, 1], allowed: '[r, g, b]', help: 'a made-up kind'});
        renderParams();""")
    field = browser.find_element(By.CSS_SELECTOR, '#param-list textarea[data-param="tint"]')
    assert field.get_attribute("value") == "[1,1,1]"
    field.clear()
    field.send_keys("[1, 0.5")
    browser.find_element(By.ID, "step-name").click()
    wait(browser, lambda d: "invalid JSON" in d.find_element(
        By.CSS_SELECTOR, '.param[data-param="tint"] .error').text, "no JSON syntax error shown")
    field.clear()
    field.send_keys("[1, 0.5, 0.5]")
    browser.find_element(By.ID, "step-name").click()
    wait(browser, lambda d: "unknown parameter 'tint'" in d.find_element(
        By.CSS_SELECTOR, '.param[data-param="tint"] .error').text, "the server's error is not at the field")
    assert browser.find_element(By.ID, "save").get_attribute("disabled") is not None


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", path
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


def test_geometry_steps_from_the_catalogue(editor, browser):
    """Adds a resize and a rotate step from the catalogue, sets resize's width through its
    control (the "use width" box, then the number field) and rotate's angle through its menu,
    waits for previews of the new size (coffee.png is 600x400: width 300 gives 300x200, turned
    by 270 degrees 200x300), saves, and checks the file, `validate`, and `apply`'s output size."""
    from selenium.webdriver.support.ui import Select

    with open(editor["chain"]) as f:
        before = json.load(f)
    browser.get(editor["url"])
    wait(browser, lambda d: all(previews(d)), "the previews never appeared")
    assert previews(browser)[1].startswith("600x400:")

    # The catalogue puts the geometry steps in their group.
    groups = browser.execute_script("""
        return [...document.querySelectorAll('#add-type optgroup')].map(g =>
            [g.label, [...g.querySelectorAll('option')].map(o => o.value)]);""")
    assert dict(groups)["geometry"] == ["resize", "crop", "rotate", "flip"]

    # Add resize after step 1. With no size it is invalid: the error shows at the step and
    # Save is disabled.
    browser.find_element(By.ID, "view-steps").click()
    Select(browser.find_element(By.ID, "add-type")).select_by_value("resize")
    browser.find_element(By.ID, "add").click()
    wait(browser, lambda d: d.find_element(By.ID, "left-label").text.startswith("after step 2: resize")
         or d.find_element(By.CSS_SELECTOR, "#param-width-use"), "resize not added")
    wait(browser, lambda d: "no size given" in d.find_element(
        By.CSS_SELECTOR, '#param-list .param[data-param=""] .error').text, "resize's error is not shown at the step")
    assert browser.find_element(By.ID, "save").get_attribute("disabled") is not None
    width = browser.find_element(By.ID, "param-width")
    assert width.get_attribute("disabled") is not None  # left out until "use width"

    # Its width, through its control.
    browser.find_element(By.ID, "param-width-use").click()
    width = wait(browser, lambda d: (lambda f: f if f.get_attribute("disabled") is None else None)(
        d.find_element(By.ID, "param-width")), "width not enabled")
    assert width.get_attribute("value") == "600"  # the image's width to start from
    assert width.get_attribute("step") == "1"
    width.send_keys(Keys.CONTROL, "a")  # (clear() would send an empty change, which the field refuses)
    width.send_keys("300", Keys.TAB)
    wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, '#param-list input[type=range][data-param="width"]')
         .get_attribute("value") == "300", "the slider did not follow the field")

    # Add rotate after resize; its angle through its menu.
    browser.find_element(By.ID, "view-steps").click()
    Select(browser.find_element(By.ID, "add-type")).select_by_value("rotate")
    browser.find_element(By.ID, "add").click()
    angle = wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, 'select#param-angle'), "no angle menu")
    menu = Select(angle)
    assert [o.text for o in menu.options] == ["90", "180", "270", "-90", "-180", "-270"]
    assert menu.first_selected_option.text == "90"
    menu.select_by_visible_text("270")

    # Both previews at the new size: after step 3 (rotate) and final.
    wait(browser, lambda d: d.find_element(By.ID, "left-label").text.startswith("after step 3: rotate"), "rotate not selected")
    wait(browser, lambda d: all(p and p.startswith("200x300:") for p in previews(d)),
         "the previews never became 200x300")
    assert browser.find_element(By.ID, "right-size").text == "200×300"

    # Save; the file on disk.
    browser.find_element(By.ID, "save").click()
    wait(browser, lambda d: d.find_element(By.ID, "status").text.startswith("saved to"), "save did not finish")
    with open(editor["chain"]) as f:
        after = json.load(f)
    steps = after["filters"]
    assert [s["type"] for s in steps] == ["colorControls", "resize", "rotate", "toneCurve", "gaussianBlur"]
    assert steps[1]["parameters"] == {"width": 300, "enlarge": True, "fast": False, "position": [0.5, 0.5]}
    assert type(steps[1]["parameters"]["width"]) is int
    assert steps[2]["parameters"] == {"angle": 270}
    assert [s["id"] for s in (steps[0], steps[3], steps[4])] == [s["id"] for s in before["filters"]]
    assert len({s["id"] for s in steps}) == 5
    validate = subprocess.run([os.path.join(BIN, "filterchain"), "validate", editor["chain"]],
                              capture_output=True, text=True)
    assert validate.returncode == 0, validate.stderr
    out = os.path.join(os.path.dirname(editor["chain"]), "out.png")
    applied = subprocess.run([os.path.join(BIN, "filterchain"), "apply", editor["chain"],
                              os.path.join(ROOT, "samples", "coffee.png"), out], capture_output=True, text=True)
    assert applied.returncode == 0, applied.stderr
    assert png_size(out) == (200, 300)


def test_a_bad_cube_path_shows_at_its_field_and_a_colour_keeps_exact_values(editor, browser):
    """lut's file is checked as it is entered: a missing .cube shows its error at the field;
    an existing one clears it. monochrome's colour fields keep the exact numbers typed."""
    from selenium.webdriver.support.ui import Select

    browser.get(editor["url"])
    wait(browser, lambda d: all(previews(d)), "the previews never appeared")
    browser.find_element(By.ID, "view-steps").click()
    Select(browser.find_element(By.ID, "add-type")).select_by_value("lut")
    browser.find_element(By.ID, "add").click()
    field = wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, 'input#param-file'), "no file field")
    field.send_keys("nope.cube", Keys.TAB)
    # The error names where the file was looked for (relative paths start at the chain file's folder).
    folder = os.path.dirname(editor["chain"])
    wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, '.param[data-param="file"] .error').text
         == f"nope.cube: no such file (looked for {os.path.realpath(folder)}/nope.cube; paths in a chain file are relative to its folder)"
         or d.find_element(By.CSS_SELECTOR, '.param[data-param="file"] .error').text
         == f"nope.cube: no such file (looked for {folder}/nope.cube; paths in a chain file are relative to its folder)",
         "the missing file's error is not at the field")
    assert browser.find_element(By.ID, "save").get_attribute("disabled") is not None
    field = browser.find_element(By.CSS_SELECTOR, 'input#param-file')
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys(os.path.join(ROOT, "samples", "luts", "warm-film.cube"), Keys.TAB)
    wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, '.param[data-param="file"] .error').text == ""
         and d.find_element(By.ID, "save").get_attribute("disabled") is None, "a good .cube is not taken")

    browser.find_element(By.ID, "view-steps").click()

    Select(browser.find_element(By.ID, "add-type")).select_by_value("monochrome")
    browser.find_element(By.ID, "add").click()
    green = wait(browser, lambda d: d.find_element(By.ID, "param-color-g"), "no colour fields")
    green.send_keys(Keys.CONTROL, "a")
    green.send_keys("0.123456789", Keys.TAB)
    time.sleep(0.3)
    browser.find_element(By.ID, "save").click()
    wait(browser, lambda d: d.find_element(By.ID, "status").text.startswith("saved to"), "save did not finish")
    with open(editor["chain"]) as f:
        steps = json.load(f)["filters"]
    assert [s["type"] for s in steps][1:3] == ["lut", "monochrome"]
    assert steps[1]["parameters"]["file"] == os.path.join(ROOT, "samples", "luts", "warm-film.cube")
    assert steps[2]["parameters"]["color"] == [0.6, 0.123456789, 0.3]
    validate = subprocess.run([os.path.join(BIN, "filterchain"), "validate", editor["chain"]],
                              capture_output=True, text=True)
    assert validate.returncode == 0, validate.stderr


# The largest difference between an <img>'s pixels and those of a PNG given as base64
# (drawn the same way, through a canvas), or a string saying why there is none.
COMPARE = """
const [id, b64, done] = arguments;
const img = document.getElementById(id);
const other = new Image();
other.onload = () => {
  if (other.naturalWidth !== img.naturalWidth || other.naturalHeight !== img.naturalHeight) {
    done(`sizes differ: ${img.naturalWidth}x${img.naturalHeight} and ${other.naturalWidth}x${other.naturalHeight}`); return;
  }
  const data = (im) => { const c = document.createElement('canvas'); c.width = im.naturalWidth; c.height = im.naturalHeight;
    const g = c.getContext('2d'); g.drawImage(im, 0, 0); return g.getImageData(0, 0, c.width, c.height).data; };
  const a = data(img), b = data(other);
  let most = 0;
  for (let i = 0; i < a.length; i++) most = Math.max(most, Math.abs(a[i] - b[i]));
  done(most);
};
other.onerror = () => done("the PNG did not load");
other.src = "data:image/png;base64," + b64;
"""


def assert_left_preview_is_step_1_of_the_saved_chain(browser, editor):
    """The left preview is, within a level, the image `apply --preview 1` makes of the saved
    chain file."""
    import base64

    out, step1 = os.path.join(editor["folder"], "out.png"), os.path.join(editor["folder"], "step1.png")
    applied = subprocess.run([os.path.join(BIN, "filterchain"), "apply", editor["chain"], editor["image"], out, "--strip",
                              "--preview", "1", "--preview-output", step1], capture_output=True, text=True)
    assert applied.returncode == 0, applied.stderr
    with open(step1, "rb") as f:
        b64 = base64.b64encode(f.read()).decode()
    difference = browser.execute_async_script(COMPARE, "left", b64)
    assert isinstance(difference, int) and difference <= 1, difference


def test_a_variables_slider_rerenders_the_previews_and_is_saved(strength_editor, browser):
    """Drives the variable `strength` with its slider (ten steps of 0.01 to the right, as a
    keyboard user would): both previews change; a parameter computed from it shows its new
    value; a typo in an expression shows at its field; the saved file has the new value and
    its expressions unchanged; and the preview (coffee.png is 600 x 400, shown at full size)
    is the image `filterchain apply` makes of the saved file, within a level."""
    editor = strength_editor
    with open(editor["chain"]) as f:
        before = json.load(f)
    browser.get(editor["url"])
    wait(browser, lambda d: all(previews(d)), "the previews never appeared")
    settled = settled_previews(browser)
    slider = browser.find_element(By.CSS_SELECTOR, '#variable-list input[type=range][data-variable="0"]')
    assert slider.get_attribute("min") == "0" and slider.get_attribute("max") == "1" and slider.get_attribute("step") == "0.01"
    field = browser.find_element(By.ID, "variable-0")
    assert field.get_attribute("value") == "0.5"

    # Step 1 (colour) is selected: its saturation is "=1 + 0.4 * strength", 1.2 here.
    taken = lambda d: d.find_element(By.CSS_SELECTOR, '#param-list .param[data-param="saturation"] .taken').text
    wait(browser, lambda d: taken(d) == "= 1.2 here", "the value taken is not shown")
    assert browser.find_element(By.ID, "param-saturation").get_attribute("value") == "=1 + 0.4 * strength"

    slider.click()
    browser.switch_to.active_element.send_keys(Keys.HOME)   # 0: from a known place
    for _ in range(60):
        browser.switch_to.active_element.send_keys(Keys.ARROW_RIGHT)
    wait(browser, lambda d: d.find_element(By.ID, "variable-0").get_attribute("value") == "0.6", "the field did not follow the slider")
    wait(browser, lambda d: all(a is not None and a != b for a, b in zip(previews(d), settled)), "the previews did not both change")
    wait(browser, lambda d: taken(d) == "= 1.24 here", "the computed value did not follow the variable")
    changed = settled_previews(browser)
    shot = os.environ.get("FILTERCHAIN_VARIABLES_SCREENSHOT")
    if shot:
        browser.save_screenshot(shot)

    # A typo in an expression shows at its field, and nothing is rendered or saved.
    expression = browser.find_element(By.ID, "param-saturation")
    expression.send_keys(Keys.CONTROL, "a")
    expression.send_keys("=1 + 0.4 * strenght", Keys.TAB)
    error = lambda d: d.find_element(By.CSS_SELECTOR, '#param-list .param[data-param="saturation"] .error').text
    wait(browser, lambda d: "unknown name 'strenght'; did you mean 'strength'?" in error(d), "the expression's error is not at its field")
    assert browser.find_element(By.ID, "save").get_attribute("disabled") is not None
    expression = browser.find_element(By.ID, "param-saturation")
    expression.send_keys(Keys.CONTROL, "a")
    expression.send_keys("=1 + 0.4 * strength", Keys.TAB)
    wait(browser, lambda d: error(d) == "" and d.find_element(By.ID, "save").get_attribute("disabled") is None, "the error did not clear")
    assert settled_previews(browser) == changed

    browser.find_element(By.ID, "save").click()
    wait(browser, lambda d: d.find_element(By.ID, "status").text.startswith("saved to"), "save did not finish")
    with open(editor["chain"]) as f:
        after = json.load(f)
    assert after["variables"][0]["value"] == pytest.approx(0.6, abs=1e-12)
    assert after["filters"] == before["filters"]
    validate = subprocess.run([os.path.join(BIN, "filterchain"), "validate", editor["chain"]], capture_output=True, text=True)
    assert validate.returncode == 0, validate.stderr

    # The left preview (after step 1, colour, which reads strength twice) is the image
    # `apply --preview 1` makes of the saved file. (The final preview is not compared: the
    # editor's cache keeps 16-bit images between steps, clamped to 0...1 where the colour
    # step pushed values past 1, as README says.)
    assert_left_preview_is_step_1_of_the_saved_chain(browser, editor)


def test_a_number_node_in_the_graph_drives_what_reads_it(strength_editor, browser):
    """The graph view draws the variable `strength` as a number node, wired to the two steps
    whose parameters read it (colour and the vignette; not the blur, which reads the image's
    size only). Its slider, driven by keyboard (sixty steps of 0.01 from 0), moves the
    Variables panel's own controls with it, re-renders both previews, and is what Save
    writes; the left preview is then the image `apply --preview 1` makes of the saved file."""
    editor = strength_editor
    with open(editor["chain"]) as f:
        before = json.load(f)
    browser.get(editor["url"])
    wait(browser, lambda d: all(previews(d)), "the previews never appeared")
    settled = settled_previews(browser)
    number = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, '.gnum[data-variable="strength"]'), "no number node")[0]
    # One wire into each parameter that reads it: the colour step's saturation and contrast,
    # the vignette's intensity.
    readers = browser.execute_script(
        "return [...document.querySelectorAll('path.gwire.number[data-variable=\"strength\"]')].map(p => [p.dataset.reader, p.dataset.param])")
    ids = [s["id"].upper() for s in before["filters"]]
    assert sorted(map(tuple, readers)) == sorted([("step:" + ids[0], "saturation"), ("step:" + ids[0], "contrast"),
                                                  ("step:" + ids[2], "intensity")]), readers
    # The wires end on the nodes they name, at the row of the parameter they drive.
    for reader, param in readers:
        box = browser.execute_script(
            "return document.querySelector(`.gnode[data-key=\"${arguments[0]}\"] .ginrow[data-param=\"${arguments[1]}\"]`)"
            ".getBoundingClientRect().toJSON()", reader, param)
        end = browser.execute_script(
            "const p = document.querySelector(`path.gwire.number[data-reader=\"${arguments[0]}\"][data-param=\"${arguments[1]}\"]`);"
            "const s = p.getTotalLength(); const q = p.getPointAtLength(s);"
            "const m = p.getScreenCTM(); return {x: q.x * m.a + m.e, y: q.y * m.d + m.f};", reader, param)
        assert box["left"] - 16 <= end["x"] <= box["right"] + 2 and box["top"] - 2 <= end["y"] <= box["bottom"] + 2, (box, end)
    assert number.find_element(By.CSS_SELECTOR, ".gnumfield").get_attribute("value") == "0.5"

    slider = number.find_element(By.CSS_SELECTOR, "input.gnumslider")
    assert slider.get_attribute("min") == "0" and slider.get_attribute("max") == "1" and slider.get_attribute("step") == "0.01"
    slider.click()
    browser.switch_to.active_element.send_keys(Keys.HOME)
    for _ in range(60):
        browser.switch_to.active_element.send_keys(Keys.ARROW_RIGHT)
    wait(browser, lambda d: d.execute_script("return state.chain.variables[0].value") == pytest.approx(0.6, abs=1e-9),
         "the chain did not follow the number node")
    wait(browser, lambda d: d.find_element(By.ID, "variable-0").get_attribute("value") == "0.6", "the panel's field did not follow")
    assert browser.find_element(By.CSS_SELECTOR, '#variable-list input[type=range][data-variable="0"]').get_attribute("value") == "0.6"
    wait(browser, lambda d: all(a is not None and a != b for a, b in zip(previews(d), settled)), "the previews did not both change")
    settled_previews(browser)
    # The page's one undo history holds the node's edits (a key press each, as the panel's
    # slider): Undo takes the last one back, in the node and the panel, and Redo replays it.
    browser.find_element(By.ID, "undo").click()
    wait(browser, lambda d: number.find_element(By.CSS_SELECTOR, ".gnumfield").get_attribute("value") == "0.59", "undo did not reach the node")
    assert browser.find_element(By.ID, "variable-0").get_attribute("value") == "0.59"
    browser.find_element(By.ID, "redo").click()
    wait(browser, lambda d: number.find_element(By.CSS_SELECTOR, ".gnumfield").get_attribute("value") == "0.6", "redo did not reach the node")
    settled_previews(browser)
    shot = os.environ.get("FILTERCHAIN_NUMBERS_SCREENSHOT")  # README's samples/editor-numbers.png
    if shot:
        browser.save_screenshot(shot)

    browser.find_element(By.ID, "save").click()
    wait(browser, lambda d: d.find_element(By.ID, "status").text.startswith("saved to"), "save did not finish")
    with open(editor["chain"]) as f:
        after = json.load(f)
    assert after["variables"][0]["value"] == pytest.approx(0.6, abs=1e-12)
    assert after["filters"] == before["filters"]
    assert_left_preview_is_step_1_of_the_saved_chain(browser, editor)


def test_a_pq_source_is_marked_hdr(browser):
    """The PQ AVIF of ../shared/conformance/avif (no gain map): the header's HDR badge says
    the previews are its SDR rendition and that Export keeps it HDR."""
    source = os.path.join(os.path.dirname(ROOT), "shared", "conformance", "avif", "files", "gen_avifenc_10bit_422_pq_limited.avif")
    running = running_editor("hdr-edit.json", source, ("--output", "FOLDER/out.avif"))
    session = next(running)
    try:
        browser.get(session["url"])
        wait(browser, lambda d: d.find_element(By.ID, "file").text, "the header was not filled")
        badge = browser.find_element(By.ID, "hdr-badge")
        wait(browser, lambda d: badge.is_displayed(), "no HDR badge")
        title = badge.get_attribute("title")
        assert badge.text == "HDR" and "(PQ)" in title and "SDR rendition" in title and "keeps it HDR" in title, title
    finally:
        next(running, None)


def test_a_source_with_a_gain_map_is_marked_and_says_what_export_does(browser):
    """samples/rocket-ultrahdr.jpg (an Ultra HDR JPEG) with Export to a PQ AVIF: the header's
    HDR badge says the previews are SDR and what Export writes; coffee.png has no badge."""
    for image, extra, expected in [("rocket-ultrahdr.jpg", ("--output", "FOLDER/out.avif", "--hdr", "pq"), "(PQ)"),
                                   ("coffee.png", (), None)]:
        running = running_editor("hdr-edit.json", image, extra)
        session = next(running)
        try:
            browser.get(session["url"])
            wait(browser, lambda d: d.find_element(By.ID, "file").text, "the header was not filled")
            badge = browser.find_element(By.ID, "hdr-badge")
            if expected is None:
                assert not badge.is_displayed()
                continue
            wait(browser, lambda d: badge.is_displayed(), "no HDR badge")
            title = badge.get_attribute("title")
            assert badge.text == "HDR" and "ISO 21496-1" in title and "previews show the SDR image" in title, title
            assert expected in title, title
        finally:
            next(running, None)
