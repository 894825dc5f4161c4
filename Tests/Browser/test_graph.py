"""The editor's graph view in a real browser (Debian's chromium and chromium-driver, Selenium).

Builds the glow graph (samples/chains/glow.json) from an empty chain by dragging wires and
saves it; refuses a wire that would make a cycle, naming the nodes; reorders the list for a
wire to a later step; moves a radial mask's centre by dragging its handle on the preview, and by arrow keys
with the focus kept while previews arrive;
shows the mask overlay; keeps the graph across a reload; wires by keyboard alone; and stays
usable in a 420 px window. With FILTERCHAIN_GRAPH_SCREENSHOT set to a path, saves there the
glow graph built by dragging (samples/editor-graph.png, from a release build:
FILTERCHAIN_BIN=.build/release); FILTERCHAIN_GRAPH_NARROW_SCREENSHOT the 420 px one.

Run from the package root after `swift build`: python3 -m pytest Tests/Browser -q
"""

import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from test_editor import BIN, ROOT, browser, viewport, wait  # noqa: F401

GLOW = os.path.join(ROOT, "samples", "chains", "glow.json")
ID = re.compile(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}")


class Editor:
    def __init__(self, chain_text=None, image="coffee.png"):
        self.folder = tempfile.mkdtemp(prefix="filterchain-graph-")
        self.chain = os.path.join(self.folder, "chain.json")
        if chain_text is not None:
            with open(self.chain, "w") as f:
                f.write(chain_text)
        self.process = subprocess.Popen(
            [os.path.join(BIN, "filterchain"), "edit", self.chain, os.path.join(ROOT, "samples", image), "--no-browser"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.url = self.process.stdout.readline().strip()
        assert self.url.startswith("http://127.0.0.1:"), self.process.stderr.read()

    def saved(self):
        with open(self.chain) as f:
            return f.read()

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            assert self.process.wait(timeout=20) == 0
        shutil.rmtree(self.folder, ignore_errors=True)


@pytest.fixture
def start():
    editors = []

    def make(chain_text=None):
        e = Editor(chain_text)
        editors.append(e)
        return e
    yield make
    for e in editors:
        e.stop()


def page_chain(driver):
    return driver.execute_script("return state.chain")


def settled(driver):
    """The server has the page's chain and the previews for it have arrived."""
    return driver.execute_script(
        "return !state.syncing && document.getElementById('left').dataset.generation === String(state.generation)")


def load(driver, editor):
    driver.get(editor.url)
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, '.gnode[data-key="source"]') and settled(d),
         "the graph never appeared")


def node(driver, key):
    return driver.find_element(By.CSS_SELECTOR, f'.gnode[data-key="{key}"]')


def step_key(driver, index):
    return "step:" + page_chain(driver)["filters"][index]["id"].upper()


def out_port(driver, key):
    return node(driver, key).find_element(By.CSS_SELECTOR, ".gport.out")


def in_port(driver, key, port):
    return node(driver, key).find_element(By.CSS_SELECTOR, f'.gport.in[data-port="{port}"]')


def drag(driver, source, target):
    """Presses on `source`, moves in steps onto `target` (an element), releases."""
    ActionChains(driver).move_to_element(source).click_and_hold().move_by_offset(8, 8).pause(0.05) \
        .move_to_element(target).pause(0.05).release().perform()


def drag_to_point(driver, source, x, y):
    """Presses on `source`, moves to (x, y) in the viewport, releases."""
    actions = ActionBuilder(driver)
    actions.pointer_action.move_to(source).pointer_down().move_by(8, 8).pause(0.05) \
        .move_to_location(int(x), int(y)).pause(0.05).pointer_up()
    actions.perform()


EMPTY_POINT = """
const g = document.getElementById('graph').getBoundingClientRect();
for (let fy = 0.5; fy < 0.95; fy += 0.1) for (let fx = 0.95; fx > 0.05; fx -= 0.05) {
  const x = g.left + g.width * fx, y = g.top + g.height * fy;
  const e = document.elementFromPoint(x, y);
  if (e && !e.closest('.gnode, .gport, .ghit, button, .graph-popup') && e.closest('#graph')) {
    let near = false;
    for (const n of document.querySelectorAll('.gnode')) {
      const r = n.getBoundingClientRect();
      if (x > r.left - 40 && x < r.right + 40 && y > r.top - 40 && y < r.bottom + 40) near = true;
    }
    if (!near) return [x, y];
  }
}
return null;
"""


def add_by_dragging(driver, from_key, filter_type):
    """Drags from a node's output to empty space and picks `filter_type` in the catalogue."""
    count = len(page_chain(driver)["filters"])
    x, y = driver.execute_script(EMPTY_POINT)
    drag_to_point(driver, out_port(driver, from_key), x, y)
    menu = wait(driver, lambda d: d.find_element(By.ID, "graph-add-type"), "the catalogue did not open")
    Select(menu).select_by_value(filter_type)
    driver.find_element(By.ID, "graph-add").click()
    wait(driver, lambda d: len(page_chain(d)["filters"]) == count + 1, f"{filter_type} was not added")
    return step_key(driver, count)


def set_field(driver, element_id, text):
    field = wait(driver, lambda d: d.find_element(By.ID, element_id), f"no #{element_id}")
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys(text, Keys.TAB)


def save(driver):
    wait(driver, settled, "the chain never reached the server")
    driver.find_element(By.ID, "save").click()
    wait(driver, lambda d: d.find_element(By.ID, "status").text.startswith("saved to"), "save did not finish")


def canonical(path):
    """The reference chain as filterchain writes it (a no-op `chain set` rewrites the file)."""
    copy = path + ".canonical.json"
    shutil.copy(GLOW, copy)
    subprocess.run([os.path.join(BIN, "filterchain"), "chain", "set", copy, "soft", "sigma=10"], check=True,
                   capture_output=True)
    with open(copy) as f:
        return f.read()


def without_ids(text):
    return ID.sub("ID", text)


def test_build_the_glow_graph_by_dragging_wires_and_save(start, browser):
    editor = start()  # no file: the editor makes an empty chain
    load(browser, editor)
    assert page_chain(browser)["filters"] == []
    assert "final" in node(browser, "source").get_attribute("class")

    # The blur, from the source's output dropped on empty space.
    soft = add_by_dragging(browser, "source", "gaussianBlur")
    set_field(browser, "step-name", "soft")
    set_field(browser, "param-sigma", "10")
    # The blend, from the source's output too: it reads the source, not the step above.
    glow = add_by_dragging(browser, "source", "blend")
    set_field(browser, "step-name", "glow")
    assert page_chain(browser)["filters"][1]["input"] == "source"
    # Its layer: a wire from the blur's output to the blend's layer port.
    drag(browser, out_port(browser, soft), in_port(browser, glow, "layer"))
    wait(browser, lambda d: page_chain(d)["filters"][1]["parameters"]["layer"] == "soft", "the layer was not wired")
    # Mode and opacity on the blend node itself: its menu and its slider.
    Select(node(browser, glow).find_element(By.CSS_SELECTOR, "select.gmode")).select_by_value("screen")
    slider = node(browser, glow).find_element(By.CSS_SELECTOR, "input.gopacity")
    slider.send_keys(Keys.HOME)
    for _ in range(10):  # Page Up: ten of the slider's steps (1/200 of its range each)
        slider.send_keys(Keys.PAGE_UP)
    wait(browser, lambda d: page_chain(d)["filters"][1]["parameters"]["opacity"] == 0.5, "opacity is not 0.5")
    assert browser.find_element(By.ID, "param-mode").get_attribute("value") == "screen"  # the parameters follow
    # The exposure, from the blend's output: it is the step just below, so it needs no input.
    light = add_by_dragging(browser, glow, "exposure")
    set_field(browser, "step-name", "light")
    set_field(browser, "param-ev", "0.3")
    Select(browser.find_element(By.ID, "mask-type")).select_by_value("radial")
    for field, value in [("mask-center-y", "0.45"), ("mask-radius", "0.5"), ("mask-feather", "0.4")]:
        set_field(browser, field, value)
    wait(browser, lambda d: page_chain(d)["filters"][2]["mask"].get("feather") == 0.4, "the mask was not set")
    assert "final" in node(browser, light).get_attribute("class")
    assert "final" not in node(browser, "source").get_attribute("class")
    # Three wires drawn solid (input of glow, its layer... and none broken); two implicit.
    wires = browser.execute_script("return [...document.querySelectorAll('.gwire')].map(w => w.getAttribute('class'))")
    assert sorted(wires) == ["gwire", "gwire", "gwire implicit", "gwire implicit"]

    save(browser)
    saved = editor.saved()
    assert without_ids(saved) == without_ids(canonical(editor.chain))
    assert len(set(ID.findall(saved))) == 3
    validate = subprocess.run([os.path.join(BIN, "filterchain"), "validate", editor.chain], capture_output=True, text=True)
    assert validate.returncode == 0, validate.stderr

    shot = os.environ.get("FILTERCHAIN_GRAPH_SCREENSHOT")  # README's samples/editor-graph.png
    if shot:
        node(browser, glow).click()
        wait(browser, lambda d: settled(d) and d.find_element(By.ID, "graph").get_attribute("data-thumbnails")
             == d.execute_script("return String(state.generation)"), "thumbnails did not arrive")
        time.sleep(0.5)
        browser.save_screenshot(shot)


def test_a_wire_that_would_make_a_cycle_is_refused(start, browser):
    with open(GLOW) as f:
        editor = start(f.read())
    load(browser, editor)
    before = page_chain(browser)
    light, soft = step_key(browser, 2), step_key(browser, 0)
    # light reads glow (the step above), glow reads soft (its layer): soft cannot read light.
    drag(browser, out_port(browser, light), in_port(browser, soft, "input"))
    message = wait(browser, lambda d: d.find_element(By.ID, "graph-message").text, "no message").strip()
    assert message == ("refused: a wire from step 3 (light) to the input of step 1 (soft) would make a cycle: "
                       "step 3 (light) reads step 2 (glow), step 2 (glow) reads step 1 (soft), "
                       "and step 1 (soft) would read step 3 (light)")
    assert "bad" in browser.find_element(By.ID, "graph-message").get_attribute("class")
    assert page_chain(browser) == before
    assert browser.find_element(By.ID, "undo").get_attribute("disabled") is not None
    # A node cannot read itself either.
    drag(browser, out_port(browser, soft), in_port(browser, soft, "input"))
    wait(browser, lambda d: d.find_element(By.ID, "graph-message").text == "refused: step 1 (soft) cannot read itself",
         "reading itself was not refused")
    assert page_chain(browser) == before


def test_a_wire_to_a_later_step_reorders_the_list(start, browser):
    chain = {"version": 2, "filters": [
        {"id": "286A9E1B-9F22-4BE0-8507-BA9CAA26F538", "type": "blend", "name": "glow",
         "parameters": {"layer": "source", "mode": "screen", "opacity": 0.5}},
        {"id": "7FC24D02-BC43-416B-8469-02169C97D567", "type": "gaussianBlur", "name": "soft", "input": "source",
         "parameters": {"sigma": 10}}]}
    editor = start(json.dumps(chain))
    load(browser, editor)
    glow, soft = step_key(browser, 0), step_key(browser, 1)
    labels = lambda d: [e.text for e in d.find_elements(By.CSS_SELECTOR, "#steps .label")]
    show_list(browser)
    assert labels(browser) == ["glow blend", "soft gaussianBlur"]
    # The blur's output to the blend's layer: the blur moves above the blend, and each step
    # still reads what it read (the blend now names the source, which is no longer above it).
    drag(browser, out_port(browser, soft), in_port(browser, glow, "layer"))
    wait(browser, lambda d: labels(d) == ["soft gaussianBlur", "glow blend"], "the list was not reordered")
    assert "reordered" in browser.find_element(By.ID, "graph-message").text
    steps = page_chain(browser)["filters"]
    assert "input" not in steps[0] and steps[1]["input"] == "source" and steps[1]["parameters"]["layer"] == "soft"
    save(browser)
    saved = json.loads(editor.saved())["filters"]
    reference = json.loads(canonical(editor.chain))["filters"][:2]
    assert saved == reference
    # Undo puts the list back.
    browser.find_element(By.ID, "undo").click()
    wait(browser, lambda d: labels(d) == ["glow blend", "soft gaussianBlur"], "undo did not restore the order")


def left_rect(driver):
    return driver.execute_script("""
        const s = document.getElementById('mask-handles').getBoundingClientRect();
        return [s.left, s.top, s.width, s.height];""")


def show_list(driver):
    """Switches the side panel to the step list (the graph is the main way in)."""
    driver.find_element(By.ID, "view-steps").click()
    wait(driver, lambda d: d.find_element(By.ID, "steps").is_displayed(), "the step list did not show")


def select_step(driver, index):
    show_list(driver)
    driver.find_element(By.CSS_SELECTOR, f'#steps li[data-index="{index}"] .label').click()
    wait(driver, lambda d: d.find_element(By.ID, "left-label").text.startswith(f"after step {index + 1}"), "not selected")
    wait(driver, settled, "previews did not arrive")


def open_masked_step(start, browser):
    """The glow graph in the editor with its radial-masked step (the third) selected and its
    previews in; returns the editor and the mask's centre handle."""
    with open(GLOW) as f:
        editor = start(f.read())
    load(browser, editor)
    select_step(browser, 2)
    centre = wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, '#mask-handles [data-handle="center"]'), "no handle")
    return editor, centre


def test_dragging_a_radial_masks_centre_moves_it_by_the_right_amount(start, browser):
    editor, centre = open_masked_step(start, browser)
    left, top, width, height = left_rect(browser)
    # coffee.png is 600 x 400, drawn whole (the previews sit above the graph, the main canvas).
    assert width > 240 and abs(width / height - 1.5) < 0.01
    cx, cy = float(centre.get_attribute("cx")), float(centre.get_attribute("cy"))
    assert abs(cx - 0.5 * width) < 0.01 and abs(cy - 0.45 * height) < 0.01
    generation = browser.execute_script("return state.generation")
    drag_to_point(browser, centre, left + cx + 60, top + cy + 30)
    # The pointer lands on whole pixels: the centre is where it was let go, within a pixel.
    expected = [0.5 + 60 / width, 0.45 + 30 / height]
    mask = wait(browser, lambda d: (lambda m: m if m["center"] != [0.5, 0.45] else None)(
        page_chain(d)["filters"][2]["mask"]), "the centre did not move")
    assert abs(mask["center"][0] - expected[0]) <= 1.5 / width and abs(mask["center"][1] - expected[1]) <= 1.5 / height
    assert mask["radius"] == 0.5 and mask["feather"] == 0.4
    # The preview re-renders, as for a slider; the parameter fields follow.
    wait(browser, lambda d: settled(d) and d.execute_script("return state.generation") > generation, "no re-render")
    assert float(browser.find_element(By.ID, "mask-center-x").get_attribute("value")) == mask["center"][0]
    save(browser)
    assert json.loads(editor.saved())["filters"][2]["mask"]["center"] == mask["center"]
    # One drag is one undo step.
    browser.find_element(By.ID, "undo").click()
    wait(browser, lambda d: page_chain(d)["filters"][2]["mask"]["center"] == [0.5, 0.45], "undo did not restore the centre")


def test_a_mask_handle_keeps_the_keyboard_focus_while_previews_arrive(start, browser):
    """Arrow keys move a focused handle one pixel each; each move re-renders the preview, and
    the handles are drawn again when it loads. The handle is the same element afterwards
    (a reference to it stays good) and still has the focus, so the keys keep working."""
    editor, centre = open_masked_step(start, browser)
    _, _, width, height = left_rect(browser)
    browser.execute_script("arguments[0].focus()", centre)
    x = 0.5  # the centre as the chain holds it: one pixel right, rounded to 4 decimals, per press
    for _ in range(3):
        generation = browser.execute_script("return state.generation")
        centre.send_keys(Keys.ARROW_RIGHT)
        x = round((x * width + 1) / width, 4)
        wait(browser, lambda d: settled(d) and d.execute_script("return state.generation") > generation, "no re-render")
        # The preview for this move has loaded (settled) and the handles were drawn for it.
        assert browser.execute_script("return document.activeElement === arguments[0]", centre)
        assert abs(float(centre.get_attribute("cx")) - x * width) < 0.001
        assert page_chain(browser)["filters"][2]["mask"]["center"] == [x, 0.45]


OVERLAY_ALPHA = """
const c = document.getElementById('mask-overlay');
const g = c.getContext('2d');
const at = (fx, fy) => g.getImageData(Math.floor(fx * (c.width - 1)), Math.floor(fy * (c.height - 1)), 1, 1).data;
return [c.width, c.height, [...at(0.5, 0.45)], [...at(0.02, 0.02)], getComputedStyle(c).display];
"""


def test_the_mask_overlay_appears(start, browser):
    with open(GLOW) as f:
        editor = start(f.read())
    load(browser, editor)
    toggle = browser.find_element(By.ID, "mask-toggle")
    assert toggle.get_attribute("disabled") is not None  # the blur has no mask
    select_step(browser, 2)
    wait(browser, lambda d: d.find_element(By.ID, "mask-toggle").get_attribute("disabled") is None, "toggle not enabled")
    toggle.click()
    assert toggle.get_attribute("aria-pressed") == "true"
    width, height, middle, corner, display = wait(
        browser, lambda d: (lambda r: r if r[4] != "none" and r[0] > 1 else None)(d.execute_script(OVERLAY_ALPHA)),
        "the overlay did not appear")
    assert (width, height) == (600, 400)
    # Yellow, 0.6 m: m is 1 in the middle of the radial mask and 0 in the corner.
    # (A canvas keeps premultiplied colour, so a partly transparent pixel reads back within
    # a level or two.)
    assert all(abs(a - b) <= 2 for a, b in zip(middle[:3], [255, 196, 0])) and abs(middle[3] - 153) <= 2
    assert corner[3] == 0
    # It covers the image as drawn.
    layer = browser.execute_script("""
        const a = document.querySelector('.mask-layer').getBoundingClientRect(), i = document.getElementById('left').getBoundingClientRect();
        return [a.width, a.height, i.width, i.height];""")
    assert abs(layer[0] - layer[2]) < 1 and abs(layer[1] - layer[3]) < 1
    # Another step without a mask: no overlay.
    select_step(browser, 1)
    wait(browser, lambda d: d.execute_script(OVERLAY_ALPHA)[4] == "none", "the overlay stayed")


def graph_picture(driver):
    """What the graph shows: each node's place and text, each wire's path and kind."""
    return driver.execute_script("""
        return [[...document.querySelectorAll('.gnode')].map(n => [n.dataset.key, n.style.left, n.style.top, n.textContent]),
                [...document.querySelectorAll('.gwire')].map(w => [w.getAttribute('class'), w.getAttribute('d')])];""")


def test_the_graph_survives_reload(start, browser):
    with open(GLOW) as f:
        editor = start(f.read())
    load(browser, editor)
    glow = step_key(browser, 1)
    # A node dragged 90 px down keeps its place in the chain (its "layout").
    before = node(browser, glow).location
    ActionChains(browser).move_to_element(node(browser, glow).find_element(By.CSS_SELECTOR, ".gname")) \
        .click_and_hold().move_by_offset(0, 45).move_by_offset(0, 45).release().perform()
    layout = wait(browser, lambda d: page_chain(d)["filters"][1].get("layout"), "the node's place was not kept")
    assert abs(node(browser, glow).location["y"] - before["y"] - 90) <= 1
    wait(browser, settled, "not settled")
    picture = graph_picture(browser)
    # Reloaded without saving: the server holds the chain, the page draws the same graph.
    browser.refresh()
    load(browser, editor)
    assert page_chain(browser)["filters"][1]["layout"] == layout
    assert graph_picture(browser) == picture
    # Saved, then opened again by another editor: the same graph from the file.
    save(browser)
    saved = editor.saved()
    assert json.loads(saved)["filters"][1]["layout"] == layout
    again = start(saved)
    load(browser, again)
    assert graph_picture(browser) == picture
    wait(browser, lambda d: all(i.get_attribute("src") for i in d.find_elements(By.CSS_SELECTOR, ".gthumb img")),
         "thumbnails did not come back")


def test_keyboard_only_connection(start, browser):
    with open(GLOW) as f:
        editor = start(f.read().replace('"layer": "soft"', '"layer": "source"'))
    load(browser, editor)
    # Tab into the graph (no mouse): focus lands on the selected node, step 1.
    for _ in range(80):
        if browser.execute_script("return !!document.activeElement.closest('#graph')"):
            break
        browser.switch_to.active_element.send_keys(Keys.TAB)
    assert browser.execute_script("return document.activeElement.dataset.key") == step_key(browser, 0)
    active = lambda: browser.switch_to.active_element
    # Home: the source; Right: soft again; C: the connect menu, from soft.
    active().send_keys(Keys.HOME)
    wait(browser, lambda d: d.execute_script("return document.activeElement.dataset.key") == "source", "Home")
    assert browser.find_element(By.ID, "left-label").text.startswith("the source")
    active().send_keys(Keys.ARROW_RIGHT)
    wait(browser, lambda d: d.execute_script("return document.activeElement.dataset.key") == step_key(d, 0), "Right")
    active().send_keys("c")
    wait(browser, lambda d: d.execute_script("return document.activeElement.id") == "graph-connect-to", "no connect menu")
    assert Select(browser.find_element(By.ID, "graph-connect-from")).first_selected_option.text == "step 1 (soft)"
    # Down through the ports to glow's layer, then Enter.
    glow_id = page_chain(browser)["filters"][1]["id"].upper()
    for _ in range(10):
        if browser.find_element(By.ID, "graph-connect-to").get_attribute("value") == f"{glow_id}|layer":
            break
        active().send_keys(Keys.ARROW_DOWN)
    active().send_keys(Keys.ENTER)
    wait(browser, lambda d: page_chain(d)["filters"][1]["parameters"]["layer"] == "soft", "not connected")
    assert browser.find_element(By.ID, "graph-message").text == "wired step 1 (soft) to the layer of glow"
    # Disconnect through the same menu: glow's input goes back to its default, the step above.
    wait(browser, lambda d: d.execute_script("return document.activeElement.dataset.key") == step_key(d, 1), "focus")
    active().send_keys("c")
    wait(browser, lambda d: d.execute_script("return document.activeElement.id") == "graph-connect-to", "no connect menu")
    for _ in range(10):
        if browser.find_element(By.ID, "graph-connect-to").get_attribute("value") == f"{glow_id}|input":
            break
        active().send_keys(Keys.ARROW_DOWN)
    active().send_keys(Keys.TAB, Keys.TAB)  # past Connect, to Disconnect
    assert browser.execute_script("return document.activeElement.id") == "graph-disconnect"
    active().send_keys(Keys.ENTER)
    wait(browser, lambda d: "input" not in page_chain(d)["filters"][1], "the input was not disconnected")
    assert browser.find_element(By.ID, "graph-message").text == "the input of glow is the step above it again"
    wait(browser, lambda d: d.execute_script("return !!document.activeElement.closest('#graph')"), "focus left the graph")
    active().send_keys(Keys.HOME)
    for _ in range(2):
        active().send_keys(Keys.ARROW_RIGHT)
    # A step added by keyboard: A opens the catalogue on the selected node (glow).
    wait(browser, lambda d: d.execute_script("return document.activeElement.dataset.key") == step_key(d, 1), "focus")
    active().send_keys("a")
    wait(browser, lambda d: d.execute_script("return document.activeElement.id") == "graph-add-search", "no catalogue")
    for _ in range(30):
        if browser.find_element(By.ID, "graph-add-type").get_attribute("value") == "invert":
            break
        active().send_keys(Keys.ARROW_DOWN)
    active().send_keys(Keys.ENTER)
    wait(browser, lambda d: [s["type"] for s in page_chain(d)["filters"]] == ["gaussianBlur", "blend", "exposure", "invert"],
         "invert not added")
    assert page_chain(browser)["filters"][3]["input"] == "glow"
    # Delete asks first when another step names it: glow is read by no one by name, so it
    # goes at once; soft is glow's layer, so the question comes, and Escape keeps it.
    active().send_keys(Keys.HOME, Keys.ARROW_RIGHT)
    wait(browser, lambda d: d.execute_script("return document.activeElement.dataset.key") == step_key(d, 0), "soft")
    active().send_keys(Keys.DELETE)
    wait(browser, lambda d: d.execute_script("return document.activeElement.id") == "graph-remove-cancel", "no question")
    assert "is read by step 2 (glow) in parameters.layer" in browser.find_element(By.ID, "graph-remove-text").text
    active().send_keys(Keys.ESCAPE)
    assert len(page_chain(browser)["filters"]) == 4
    save(browser)
    saved = json.loads(editor.saved())
    assert saved["filters"][1]["parameters"]["layer"] == "soft"


def test_a_narrow_window_shows_a_usable_graph_and_previews(start, browser):
    with open(GLOW) as f:
        editor = start(f.read())
    viewport(browser, 420, 900)
    load(browser, editor)
    # Nothing is wider than the window.
    assert browser.execute_script("return document.documentElement.scrollWidth") <= 420
    # Both previews are there, with their images, side by side (the narrow layout keeps them
    # in view above the rest).
    for which in ["left", "right"]:
        image = browser.find_element(By.ID, which)
        assert browser.execute_script("return arguments[0].naturalWidth", image) == 600
        assert 170 <= image.size["width"] <= 210
    assert browser.find_element(By.ID, "left").location["y"] == browser.find_element(By.ID, "right").location["y"]
    # The graph runs top to bottom, every node whole inside its panel, at a readable zoom.
    graph = browser.find_element(By.ID, "graph")
    browser.execute_script("arguments[0].scrollIntoView()", graph)
    box = browser.execute_script("return arguments[0].getBoundingClientRect().toJSON()", graph)
    assert box["width"] >= 380 and box["height"] >= 500
    zoom = float(graph.get_attribute("data-zoom"))
    assert zoom >= 0.6
    rects = browser.execute_script("return [...document.querySelectorAll('.gnode')].map(n => n.getBoundingClientRect().toJSON())")
    assert len(rects) == 4
    for r in rects:
        assert r["left"] >= box["left"] and r["right"] <= box["right"] and r["top"] >= box["top"] and r["bottom"] <= box["bottom"]
    tops = [r["top"] for r in rects]
    assert tops == sorted(tops)  # source, soft, glow, light: each below the one it reads
    # Wiring works there too: light reads the source instead of glow.
    light = step_key(browser, 2)
    drag(browser, out_port(browser, "source"), in_port(browser, light, "input"))
    wait(browser, lambda d: page_chain(d)["filters"][2].get("input") == "source", "not wired")
    wait(browser, settled, "previews did not follow")
    # The new wiring moves nodes in the layout: the view fits them again, every node whole.
    def all_inside(d):
        box = d.execute_script("return document.getElementById('graph').getBoundingClientRect().toJSON()")
        rects = d.execute_script("return [...document.querySelectorAll('.gnode')].map(n => n.getBoundingClientRect().toJSON())")
        return all(r["left"] >= box["left"] and r["right"] <= box["right"] and r["top"] >= box["top"]
                   and r["bottom"] <= box["bottom"] for r in rects)
    wait(browser, all_inside, "a node lies outside the graph panel after the rewiring")
    shot = os.environ.get("FILTERCHAIN_GRAPH_NARROW_SCREENSHOT")
    if shot:
        viewport(browser, 420, 2300)
        time.sleep(0.8)
        browser.save_screenshot(shot)
