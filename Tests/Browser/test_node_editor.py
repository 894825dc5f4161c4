"""The editor as a node editor (issue 41), in a real browser.

The graph is the main canvas, with the previews above it and the step list a view to switch
to; node titles are never cut and the graph's help bar never covers a node (1280x900 and 420
px); A and a wire dropped on empty space open the catalogue with a search field, grouped as
the server's filter declarations group them; nodes carry their main parameters inline
(sliders with a field, menus, a tone curve's thumbnail that opens the curve editor); a
variable without a range is a number field; a refused value marks the node and the parameter
with the server's message, and undo goes back to the last valid chain; number nodes wire to
parameters, their wires going around every node, also nodes placed by hand; operator nodes
are variables with an expression.

Each test checks what the page shows and what the server holds (GET /api/chain), or the
chain file. With FILTERCHAIN_CANVAS_SCREENSHOTS set to a folder, the canvas test saves there
README's editor-canvas-wide.png (1600x900), editor-canvas-1280.png and editor-canvas-420.png.

Run from the package root after `swift build`: python3 -m pytest Tests/Browser -q
"""

import json
import os
import time
import urllib.request

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from test_editor import ROOT, browser, viewport, wait  # noqa: F401
from test_graph import GLOW, drag, load, node, page_chain, settled, start, step_key  # noqa: F401

LOOK = os.path.join(ROOT, "samples", "chains", "look.json")


def server(editor, path="/api/chain"):
    """What the editor's server answers (its own chain, not the page's)."""
    base, token = editor.url.split("?token=")
    request = urllib.request.Request(base.rstrip("/") + path, headers={"X-Filterchain-Token": token})
    try:
        with urllib.request.urlopen(request) as response:
            return json.load(response)
    except urllib.error.HTTPError as e:
        return json.load(e)


def rect(driver, element):
    return driver.execute_script("return arguments[0].getBoundingClientRect().toJSON()", element)


def overlap(a, b):
    return a["left"] < b["right"] - 0.5 and b["left"] < a["right"] - 0.5 and a["top"] < b["bottom"] - 0.5 and b["top"] < a["bottom"] - 0.5


def long_names():
    """glow.json with names long enough that a fixed-width node would cut them."""
    with open(GLOW) as f:
        chain = json.load(f)
    chain["filters"][0]["name"] = "a_very_soft_background_blur"
    chain["filters"][1]["parameters"]["layer"] = "a_very_soft_background_blur"
    chain["filters"][2]["name"] = "light_through_the_radial_mask"
    return json.dumps(chain)


def check_canvas(driver, names=True):
    """Titles whole; every node inside the graph, clear of its help bar and of the previews."""
    graph = driver.find_element(By.ID, "graph")
    driver.execute_script("arguments[0].scrollIntoView()", graph)
    time.sleep(0.3)
    box = rect(driver, graph)
    help_bar = rect(driver, driver.find_element(By.ID, "graph-help"))
    panes = [rect(driver, p) for p in driver.find_elements(By.CSS_SELECTOR, ".previews .pane")]
    nodes = driver.find_elements(By.CSS_SELECTOR, ".gnode")
    assert len(nodes) == 4
    for n in nodes:
        for part in n.find_elements(By.CSS_SELECTOR, ".gname, .gtype"):
            cut = driver.execute_script("return arguments[0].scrollWidth > arguments[0].clientWidth", part)
            assert not cut, f"cut title: {part.text!r}"
        r = rect(driver, n)
        assert r["left"] >= box["left"] - 0.5 and r["right"] <= box["right"] + 0.5, n.text
        assert r["top"] >= box["top"] - 0.5 and r["bottom"] <= box["bottom"] + 0.5, n.text
        assert not overlap(r, help_bar), "the help bar covers " + n.text
        for p in panes:
            assert not overlap(r, p), "a preview covers " + n.text
    titles = [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".gnode .gname")]
    if names:
        assert "1 · a_very_soft_background_blur" in titles and "3 · light_through_the_radial_mask" in titles
    return box


def test_the_graph_is_the_main_canvas_titles_whole_help_clear(start, browser):
    editor = start(long_names())
    sizes = [(1600, 900, "wide"), (1280, 900, "1280"), (420, 900, "420")]
    for width, height, label in sizes:
        viewport(browser, width, height)
        load(browser, editor)
        wait(browser, lambda d: d.find_element(By.ID, "graph").get_attribute("data-thumbnails"), "no thumbnails")
        # The step list is a view to switch to, not shown at first; the parameters are.
        assert not browser.find_element(By.ID, "steps").is_displayed()
        assert browser.find_element(By.ID, "param-list").is_displayed()
        box = check_canvas(browser)
        frames = [rect(browser, f) for f in browser.find_elements(By.CSS_SELECTOR, ".previews .frame")]
        if width > 860:
            # The main canvas: larger than both previews together, below them.
            assert box["width"] * box["height"] > sum(f["width"] * f["height"] for f in frames)
            assert all(f["bottom"] <= box["top"] for f in frames)
        else:
            # Narrow: the graph fills the window below the (sticky) previews.
            assert box["bottom"] <= height + 1 and box["height"] >= 360
    # Switching to the step list shows it; back, it hides.
    viewport(browser, 1280, 900)
    browser.find_element(By.ID, "view-steps").click()
    labels = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#steps .label")]
    assert labels[0] == "a_very_soft_background_blur gaussianBlur"
    browser.find_element(By.ID, "view-node").click()
    assert not browser.find_element(By.ID, "steps").is_displayed()


def test_canvas_of_the_glow_graph_at_three_widths(start, browser):
    """samples/chains/glow.json on coffee.png: README's screenshots (FILTERCHAIN_CANVAS_SCREENSHOTS)."""
    editor = start(open(GLOW).read())
    shots = os.environ.get("FILTERCHAIN_CANVAS_SCREENSHOTS")
    for width, height, label in [(1600, 900, "wide"), (1280, 900, "1280"), (420, 900, "420")]:
        viewport(browser, width, height)
        load(browser, editor)
        wait(browser, lambda d: d.find_element(By.ID, "graph").get_attribute("data-thumbnails"), "no thumbnails")
        # The blend selected: its inline mode and opacity, its parameters in the panel.
        node(browser, step_key(browser, 1)).find_element(By.CSS_SELECTOR, ".gname").click()
        wait(browser, lambda d: d.find_element(By.ID, "left-label").text.startswith("after step 2"), "not selected")
        wait(browser, settled, "previews did not arrive")
        check_canvas(browser, names=False)
        if shots:
            # Narrow: scrolled to the graph, whole below the sticky previews.
            browser.execute_script("window.scrollTo(0, 0)" if width > 860 else
                                   "document.getElementById('graph').scrollIntoView()")
            time.sleep(0.6)
            browser.save_screenshot(os.path.join(shots, f"editor-canvas-{label}.png"))


def test_a_opens_the_catalogue_with_a_search_field(start, browser):
    editor = start(open(LOOK).read())
    load(browser, editor)
    curve = step_key(browser, 1)
    node(browser, curve).click()
    wait(browser, lambda d: d.execute_script("return document.activeElement.dataset.key") == curve, "no focus")
    ActionChains(browser).send_keys("a").perform()
    search = wait(browser, lambda d: d.find_element(By.ID, "graph-add-search"), "no catalogue")
    assert browser.execute_script("return document.activeElement.id") == "graph-add-search"
    # Its groups are the server's declarations, in the order /api/filters names them.
    catalogue = server(editor, "/api/filters")
    groups = lambda d: d.execute_script("""return [...document.querySelectorAll('#graph-add-type optgroup')]
        .map(g => [g.label, [...g.querySelectorAll('option')].map(o => o.value)])""")
    expected = []
    for f in catalogue:
        if not expected or expected[-1][0] != f["group"]:
            expected = [g for g in expected if g[0] != f["group"]] + [[f["group"], [x["type"] for x in catalogue if x["group"] == f["group"]]]]
    assert sorted(map(str, groups(browser))) == sorted(map(str, expected))
    search.send_keys("blu")
    wait(browser, lambda d: d.find_element(By.ID, "graph-add-type").get_attribute("value") == "gaussianBlur", "blu did not find it")
    shown = [v for _, members in groups(browser) for v in members]
    assert "gaussianBlur" in shown and "exposure" not in shown
    assert "blur" in browser.find_element(By.ID, "graph-add-summary").text.lower()
    search.send_keys("zzz")
    wait(browser, lambda d: "no filter matches" in d.find_element(By.ID, "graph-add-summary").text, "no message")
    for _ in range(3):
        search.send_keys(Keys.BACKSPACE)
    wait(browser, lambda d: d.find_element(By.ID, "graph-add-type").get_attribute("value") == "gaussianBlur", "not back")
    search.send_keys(Keys.ENTER)
    wait(browser, lambda d: len(page_chain(d)["filters"]) == 4, "not added")
    wait(browser, settled, "the server did not take it")
    held = server(editor)["filters"]
    assert held[3]["type"] == "gaussianBlur" and held[3]["input"] == "curve"


def test_nodes_carry_their_main_parameters_inline(start, browser):
    editor = start(open(LOOK).read())
    load(browser, editor)
    colour, curve, soften = (step_key(browser, k) for k in range(3))
    rows = lambda key: [r.get_attribute("data-param") for r in node(browser, key).find_elements(By.CSS_SELECTOR, ".ginrow")]
    assert rows(colour) == ["saturation", "brightness", "contrast"]
    assert rows(curve) == ["points", "interpolation"]
    assert rows(soften) == ["sigma"]
    # The colour node's saturation slider: Page Up twice (ten of its steps of 1/200 of 0...4
    # each), and the page, the panel and the server agree.
    slider = node(browser, colour).find_element(By.CSS_SELECTOR, '.ginrow[data-param="saturation"] input[type="range"]')
    field = node(browser, colour).find_element(By.CSS_SELECTOR, '.ginrow[data-param="saturation"] input.ginfield')
    assert field.get_attribute("value") == "1.2"
    slider.send_keys(Keys.PAGE_UP, Keys.PAGE_UP)
    wait(browser, lambda d: page_chain(d)["filters"][0]["parameters"]["saturation"] == 1.6, "the slider did not move it")
    wait(browser, settled, "the server did not take it")
    assert server(editor)["filters"][0]["parameters"]["saturation"] == 1.6
    assert field.get_attribute("value") == "1.6"
    assert browser.find_element(By.ID, "param-saturation").get_attribute("value") == "1.6"  # the panel follows
    # The panel's field moves the node's slider.
    panel = browser.find_element(By.ID, "param-saturation")
    panel.send_keys(Keys.CONTROL, "a")
    panel.send_keys("0.5", Keys.TAB)
    wait(browser, lambda d: field.get_attribute("value") == "0.5", "the node did not follow the panel")
    assert float(slider.get_attribute("value")) == 0.5
    # A menu for a choice: the curve's interpolation.
    menu = node(browser, curve).find_element(By.CSS_SELECTOR, 'select[data-param="interpolation"]')
    declared = next(p for f in server(editor, "/api/filters") if f["type"] == "toneCurve"
                    for p in f["parameters"] if p["name"] == "interpolation")
    shown = [o.get_attribute("value") for o in menu.find_elements(By.TAG_NAME, "option")]
    assert [v for v in shown if v] == [str(c) for c in declared["choices"]]   # the server's choices
    menu.find_element(By.CSS_SELECTOR, 'option[value="linear"]').click()
    wait(browser, lambda d: page_chain(d)["filters"][1]["parameters"].get("interpolation") == "linear", "menu")
    wait(browser, settled, "the server did not take it")
    assert server(editor)["filters"][1]["parameters"]["interpolation"] == "linear"
    # The curve's thumbnail draws the curve; a click opens the curve editor in the panel.
    d = node(browser, curve).find_element(By.CSS_SELECTOR, ".gcurveline").get_attribute("d")
    assert d.startswith("M0.0,56.0") and d.count("L") == 48
    node(browser, curve).find_element(By.CSS_SELECTOR, ".gcurveopen").click()
    wait(browser, lambda d: d.find_element(By.ID, "left-label").text.startswith("after step 2"), "not selected")
    editor_svg = wait(browser, lambda d: d.find_element(By.ID, "param-points"), "no curve editor")
    assert editor_svg.is_displayed()
    assert browser.execute_script("return !!document.activeElement.closest('#param-points, .param[data-param=\"points\"]')")


def test_a_refused_value_marks_node_and_parameter_and_undo_skips_it(start, browser):
    editor = start(open(LOOK).read())
    load(browser, editor)
    colour = step_key(browser, 0)
    field = lambda: node(browser, colour).find_element(By.CSS_SELECTOR, '.ginrow[data-param="saturation"] input.ginfield')

    def type_in(text):
        f = field()
        f.send_keys(Keys.CONTROL, "a")
        f.send_keys(text, Keys.TAB)
    type_in("1.5")
    wait(browser, lambda d: page_chain(d)["filters"][0]["parameters"]["saturation"] == 1.5, "1.5 not taken")
    wait(browser, settled, "1.5 not rendered")
    type_in("9")
    wait(browser, lambda d: "invalid" in node(d, colour).get_attribute("class"), "the node is not marked")
    row = node(browser, colour).find_element(By.CSS_SELECTOR, '.ginrow[data-param="saturation"]')
    assert "invalid" in row.get_attribute("class")
    message = node(browser, colour).find_element(By.CSS_SELECTOR, ".gerror").text
    assert "9 is out of range" in message and "0...4" in message
    panel_error = browser.find_element(By.CSS_SELECTOR, '#param-list .param[data-param="saturation"] .error').text
    assert "9 is out of range" in panel_error and panel_error in message   # the server's words, both places
    assert browser.find_element(By.ID, "param-saturation").get_attribute("value") == "9"
    # The server kept the last valid chain, and says so; the previews are marked.
    assert server(editor)["filters"][0]["parameters"]["saturation"] == 1.5
    assert "not rendered" in browser.find_element(By.ID, "left-label").text
    # A valid value after the refused one, then undo: back to 1.5, never to 9.
    type_in("2")
    wait(browser, lambda d: "invalid" not in node(d, colour).get_attribute("class"), "still marked")
    wait(browser, settled, "2 not rendered")
    browser.find_element(By.ID, "undo").click()
    wait(browser, lambda d: page_chain(d)["filters"][0]["parameters"]["saturation"] == 1.5, "undo did not go to 1.5")
    wait(browser, settled, "undo not rendered")
    assert server(editor)["filters"][0]["parameters"]["saturation"] == 1.5
    assert field().get_attribute("value") == "1.5"
    # Undo from a refused value goes to the last valid one too.
    type_in("-3")
    wait(browser, lambda d: "invalid" in node(d, colour).get_attribute("class"), "-3 not refused")
    browser.find_element(By.ID, "undo").click()
    wait(browser, lambda d: page_chain(d)["filters"][0]["parameters"]["saturation"] == 1.5, "undo did not leave -3")
    wait(browser, lambda d: "invalid" not in node(d, colour).get_attribute("class"), "still marked after undo")
    # Redo does not bring the refused value back.
    browser.find_element(By.ID, "redo").click()
    time.sleep(0.3)
    assert page_chain(browser)["filters"][0]["parameters"]["saturation"] != -3


def test_a_variable_without_a_range_is_a_number_field(start, browser):
    chain = json.load(open(os.path.join(ROOT, "samples", "chains", "look-strength.json")))
    chain["variables"].append({"name": "boost", "value": 0.1})
    chain["filters"][0]["parameters"]["brightness"] = "=boost"
    editor = start(json.dumps(chain))
    load(browser, editor)
    boost = wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, '.gnum[data-variable="boost"]'), "no number node")
    assert boost.find_elements(By.CSS_SELECTOR, ".gnumslider") == []
    assert len(browser.find_elements(By.CSS_SELECTOR, '.gnum[data-variable="strength"] .gnumslider')) == 1
    f = boost.find_element(By.CSS_SELECTOR, ".gnumfield")
    f.send_keys(Keys.CONTROL, "a")
    f.send_keys("0.25", Keys.TAB)
    wait(browser, lambda d: page_chain(d)["variables"][1]["value"] == 0.25, "not taken")
    wait(browser, settled, "not rendered")
    assert server(editor)["variables"][1]["value"] == 0.25
    # The colour node shows brightness as the expression's value, with a port for its wire.
    colour = step_key(browser, 0)
    wait(browser, lambda d: node(d, colour).find_element(By.CSS_SELECTOR, '.ginrow[data-param="brightness"] .ginexpr').text == "= 0.25",
         "the node does not show the value taken")


WIRES = """
    const out = [];
    const nodes = {};
    for (const n of document.querySelectorAll('.gnode')) nodes[n.dataset.key] = n.getBoundingClientRect().toJSON();
    for (const p of document.querySelectorAll(`path.gwire.number[data-variable="${arguments[0]}"]`)) {
        const m = p.getScreenCTM(), len = p.getTotalLength(), points = [];
        for (let s = 0; s <= len; s += 4) { const q = p.getPointAtLength(s).matrixTransform(m); points.push([q.x, q.y]); }
        const row = document.querySelector(`.gnode[data-key="${p.dataset.reader}"] .ginrow[data-param="${p.dataset.param}"]`);
        out.push({ reader: p.dataset.reader, param: p.dataset.param, points, nodes,
                   row: row ? row.getBoundingClientRect().toJSON() : null });
    }
    return out;"""


def test_number_nodes_wire_to_parameters(start, browser):
    editor = start(open(os.path.join(ROOT, "samples", "chains", "look-strength.json")).read())
    load(browser, editor)
    colour, soften, vignette = (step_key(browser, k) for k in range(3))
    port = lambda: browser.find_element(By.CSS_SELECTOR, '.gnum[data-variable="strength"] .gnumport')
    row = lambda key, param: node(browser, key).find_element(By.CSS_SELECTOR, f'.ginrow[data-param="{param}"] .ginlabel')
    # Its wires enter the parameters they drive, not an image port, and pass over no other node.
    wait(browser, lambda d: d.find_element(By.ID, "graph").get_attribute("data-thumbnails"), "no thumbnails")
    wires = browser.execute_script(WIRES, "strength")
    assert sorted((w["reader"], w["param"]) for w in wires) == sorted(
        [(colour, "saturation"), (colour, "contrast"), (vignette, "intensity")])
    for w in wires:
        end, target = w["points"][-1], w["row"]
        assert target["top"] <= end[1] <= target["bottom"] and abs(end[0] - target["left"]) <= 16, "not into its row"
        for key, r in w["nodes"].items():
            if key == w["reader"]:
                continue
            inside = [q for q in w["points"] if r["left"] < q[0] < r["right"] and r["top"] < q[1] < r["bottom"]]
            assert not inside, f"a wire of strength passes over {key}"
    # Onto a plain number: it reads the variable.
    drag(browser, port(), row(colour, "brightness"))
    wait(browser, lambda d: page_chain(d)["filters"][0]["parameters"]["brightness"] == "=strength", "not wired")
    wait(browser, settled, "not taken")
    assert server(editor)["filters"][0]["parameters"]["brightness"] == "=strength"
    wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, f'path.gwire.number[data-reader="{colour}"][data-param="brightness"]')) == 1,
         "no wire into brightness")
    assert "reads-number" in node(browser, colour).find_element(By.CSS_SELECTOR, '.ginrow[data-param="brightness"]').get_attribute("class")
    # Onto an expression: replace it, or multiply into it.
    drag(browser, port(), row(colour, "contrast"))
    multiply = wait(browser, lambda d: d.find_element(By.ID, "number-multiply"), "no question")
    assert "=1 + 0.2 * strength" in browser.find_element(By.ID, "number-replace-text").text
    multiply.click()
    wait(browser, lambda d: page_chain(d)["filters"][0]["parameters"]["contrast"] == "=(1 + 0.2 * strength) * strength", "not multiplied")
    drag(browser, port(), row(colour, "saturation"))
    wait(browser, lambda d: d.find_element(By.ID, "number-replace"), "no question").click()
    wait(browser, lambda d: page_chain(d)["filters"][0]["parameters"]["saturation"] == "=strength", "not replaced")
    wait(browser, settled, "not taken")
    held = server(editor)["filters"][0]["parameters"]
    assert held["contrast"] == "=(1 + 0.2 * strength) * strength" and held["saturation"] == "=strength"
    # Onto a node outside a row: which parameter, asked.
    drag(browser, port(), node(browser, soften).find_element(By.CSS_SELECTOR, ".gthumb"))
    menu = wait(browser, lambda d: d.find_element(By.ID, "number-param"), "no parameter menu")
    assert [o.get_attribute("value") for o in menu.find_elements(By.TAG_NAME, "option")] == ["sigma"]
    browser.find_element(By.ID, "number-param-wire").click()
    # sigma is an expression already: multiplied into it.
    wait(browser, lambda d: d.find_element(By.ID, "number-multiply"), "no question for sigma").click()
    wait(browser, lambda d: page_chain(d)["filters"][1]["parameters"]["sigma"] == "=(0.002 * min(width, height)) * strength",
         "sigma not multiplied")
    wait(browser, settled, "not taken")
    assert server(editor)["filters"][1]["parameters"]["sigma"] == "=(0.002 * min(width, height)) * strength"
    # A number node can be dragged like the others.
    number = browser.find_element(By.CSS_SELECTOR, '.gnum[data-variable="strength"]')
    before = rect(browser, number)
    ActionChains(browser).move_to_element(number.find_element(By.CSS_SELECTOR, ".gnumname")).click_and_hold() \
        .move_by_offset(10, 0).move_by_offset(50, 30).release().perform()
    after = rect(browser, browser.find_element(By.CSS_SELECTOR, '.gnum[data-variable="strength"]'))
    assert abs(after["left"] - before["left"] - 60) <= 2 and abs(after["top"] - before["top"] - 30) <= 2
    # Its place is kept in the chain, as a step's is: the variable's "layout", on the server
    # too, and a reload of the page draws it there.
    wait(browser, lambda d: isinstance(page_chain(d)["variables"][0].get("layout"), list), "no layout")
    wait(browser, settled, "not taken")
    place = page_chain(browser)["variables"][0]["layout"]
    assert server(editor)["variables"][0]["layout"] == place
    zoom = float(browser.find_element(By.ID, "graph").get_attribute("data-zoom"))
    load(browser, editor)
    assert page_chain(browser)["variables"][0]["layout"] == place
    world = browser.execute_script("""const n = document.querySelector('.gnum[data-variable="strength"]');
        return [parseFloat(n.style.left), parseFloat(n.style.top)]""")
    assert world == place
    assert zoom > 0


def test_operator_nodes_are_variables_with_an_expression(start, browser):
    editor = start(open(os.path.join(ROOT, "samples", "chains", "look-strength.json")).read())
    load(browser, editor)
    browser.find_element(By.ID, "graph-add-operator").click()
    op = wait(browser, lambda d: d.find_element(By.ID, "operator-op"), "no operator menu")
    assert [o.get_attribute("value") for o in op.find_elements(By.TAG_NAME, "option")] == \
        ["add", "subtract", "multiply", "divide", "min", "max", "clamp"]
    op.find_element(By.CSS_SELECTOR, 'option[value="clamp"]').click()
    assert len(browser.find_elements(By.CSS_SELECTOR, '[id^="operator-input-"]')) == 3   # x, lo, hi
    op.find_element(By.CSS_SELECTOR, 'option[value="min"]').click()
    fields = browser.find_elements(By.CSS_SELECTOR, '[id^="operator-input-"]')
    assert len(fields) == 2
    for f, text in zip(fields, ["strength", "0.3"]):
        f.send_keys(Keys.CONTROL, "a")
        f.send_keys(text)
    name = browser.find_element(By.ID, "operator-name")
    name.send_keys(Keys.CONTROL, "a")
    name.send_keys("capped")
    browser.find_element(By.ID, "operator-add").click()
    wait(browser, lambda d: [v["name"] for v in page_chain(d)["variables"]] == ["strength", "capped"], "not added")
    assert page_chain(browser)["variables"][1]["value"] == "=min(strength, 0.3)"
    wait(browser, settled, "not taken")
    assert server(editor)["variables"][1] == {"name": "capped", "value": "=min(strength, 0.3)"}
    # The node: the operation, its operands, its result live (strength is 0.5: min is 0.3).
    capped = browser.find_element(By.CSS_SELECTOR, '.gnum.operator[data-variable="capped"]')
    assert capped.find_element(By.CSS_SELECTOR, ".gop").text.lower() == "min"
    assert [f.get_attribute("value") for f in capped.find_elements(By.CSS_SELECTOR, ".gopfield")] == ["strength", "0.3"]
    result = lambda d: d.find_element(By.CSS_SELECTOR, '.gnum[data-variable="capped"] .gopresult').text
    wait(browser, lambda d: result(d) == "= 0.3", "no result")
    # strength's wire enters the operand's port.
    assert browser.find_elements(By.CSS_SELECTOR, f'path.gwire.number[data-variable="strength"][data-reader="number:capped"][data-input="0"]')
    # strength down to 0.2 on its number node: the result follows, as the server computes it.
    slider = browser.find_element(By.CSS_SELECTOR, '.gnum[data-variable="strength"] .gnumslider')
    field = browser.find_element(By.CSS_SELECTOR, '.gnum[data-variable="strength"] .gnumfield')
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys("0.2", Keys.TAB)
    wait(browser, lambda d: result(d) == "= 0.2", "the result did not follow")
    assert server(editor, "/api/values")["variables"]["capped"] == 0.2
    assert float(slider.get_attribute("value")) == 0.2
    # An operand edited on the node rewrites the expression.
    b = browser.find_elements(By.CSS_SELECTOR, '.gnum[data-variable="capped"] .gopfield')[1]
    b.send_keys(Keys.CONTROL, "a")
    b.send_keys("0.1", Keys.TAB)
    wait(browser, lambda d: page_chain(d)["variables"][1]["value"] == "=min(strength, 0.1)", "operand not taken")
    wait(browser, lambda d: result(d) == "= 0.1", "the result did not follow the operand")
    # The vignette reads it like any variable; saved, the file holds the expression.
    drag(browser, browser.find_element(By.CSS_SELECTOR, '.gnum[data-variable="capped"] .gnumport'),
         node(browser, step_key(browser, 2)).find_element(By.CSS_SELECTOR, '.ginrow[data-param="radius"] .ginlabel'))
    wait(browser, lambda d: page_chain(d)["filters"][2]["parameters"]["radius"] == "=capped", "not wired")
    wait(browser, settled, "not taken")
    browser.find_element(By.ID, "save").click()
    wait(browser, lambda d: d.find_element(By.ID, "status").text.startswith("saved to"), "not saved")
    saved = json.loads(editor.saved())
    assert saved["variables"][1] == {"name": "capped", "value": "=min(strength, 0.1)"}
    assert saved["filters"][2]["parameters"]["radius"] == "=capped"


# Every number wire's path, sampled every 2 px, and every node's box, in the graph's own
# coordinates (the wires' layer is at the world's origin; a node's box is its style).
ROUTES = """
    const boxes = [...document.querySelectorAll('.gnode, .gnum')].map(n => ({ key: n.dataset.key,
        x: parseFloat(n.style.left), y: parseFloat(n.style.top), w: parseFloat(n.style.width), h: parseFloat(n.style.height) }));
    const wires = [...document.querySelectorAll('path.gwire.number')].map(p => {
        const len = p.getTotalLength(), points = [];
        for (let s = 0; s < len; s += 2) { const q = p.getPointAtLength(s); points.push([q.x, q.y]); }
        const q = p.getPointAtLength(len);
        points.push([q.x, q.y]);
        return { variable: p.dataset.variable, reader: p.dataset.reader, param: p.dataset.param || null,
                 input: p.dataset.input || null, d: p.getAttribute('d'), points };
    });
    return { boxes, wires, vertical: graph.vertical };"""


def hand_placed():
    """look-strength.json with the blur put by hand where the old lanes ran (above and left of
    the vignette, so that the vignette's intensity wire went down through it, or across it
    top to bottom), a variable read by another (a plain wire) and an operator node."""
    chain = json.load(open(os.path.join(ROOT, "samples", "chains", "look-strength.json")))
    chain["filters"][1]["layout"] = [700, 300]
    chain["filters"][2]["layout"] = [740, 560]
    chain["variables"] += [{"name": "twice", "value": "=0.2 + strength / 2", "layout": [1000, 330]},
                           {"name": "capped", "value": "=min(strength, 0.3)", "layout": [420, 620]}]
    return json.dumps(chain)


def test_number_wires_go_around_nodes_placed_by_hand(start, browser):
    editor = start(hand_placed())
    for width, vertical in [(1280, False), (420, True)]:
        viewport(browser, width, 900)
        load(browser, editor)
        wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "path.gwire.number")) == 5, "not every number wire")
        seen = browser.execute_script(ROUTES)
        assert seen["vertical"] == vertical
        boxes = seen["boxes"]
        # The nodes themselves overlap nowhere (else no wire could pass between them).
        for n, a in enumerate(boxes):
            for b in boxes[n + 1:]:
                assert not (a["x"] < b["x"] + b["w"] and b["x"] < a["x"] + a["w"] and a["y"] < b["y"] + b["h"] and b["y"] < a["y"] + a["h"]), \
                    f"{a['key']} overlaps {b['key']}"
        readers = sorted((w["variable"], w["reader"], w["param"] or w["input"]) for w in seen["wires"])
        colour, vignette = step_key(browser, 0), step_key(browser, 2)
        assert readers == sorted([("strength", colour, "saturation"), ("strength", colour, "contrast"),
                                  ("strength", vignette, "intensity"), ("strength", "number:twice", None),
                                  ("strength", "number:capped", "0")])
        for w in seen["wires"]:
            for b in boxes:
                # A node's box shrunk by 1.5 px: a wire may end on its edge, never enter it.
                x0, y0, x1, y1 = b["x"] + 1.5, b["y"] + 1.5, b["x"] + b["w"] - 1.5, b["y"] + b["h"] - 1.5
                inside = [q for q in w["points"] if x0 < q[0] < x1 and y0 < q[1] < y1]
                assert not inside, f"{'vertical' if vertical else 'horizontal'}: the wire of {w['variable']} into " \
                    f"{w['reader']} {w['param'] or w['input'] or ''} crosses {b['key']} at {inside[0]}"
            # Straight runs with rounded corners, no curve across the canvas.
            assert "C" not in w["d"], w["d"]
        # Each ends where it did: a parameter's row or an operand's port from the left, a
        # number node's left edge (its top edge when the view runs top to bottom).
        box = {b["key"]: b for b in boxes}
        for w in seen["wires"]:
            end, target = w["points"][-1], box[w["reader"]]
            if w["param"]:
                row = browser.execute_script(
                    "const r = document.querySelector(`.gnode[data-key=\"${arguments[0]}\"] .ginrow[data-param=\"${arguments[1]}\"]`);"
                    "return [r.offsetTop + r.offsetParent.offsetTop, r.offsetHeight]", w["reader"], w["param"])
                assert abs(end[0] - (target["x"] - 2)) < 0.5 and target["y"] + row[0] <= end[1] <= target["y"] + row[0] + row[1], (w, row)
            elif w["input"]:
                assert abs(end[0] - target["x"]) < 0.5 and target["y"] + 30 <= end[1] <= target["y"] + 52, w
            elif vertical:
                assert abs(end[1] - target["y"]) < 0.5 and abs(end[0] - (target["x"] + target["w"] / 2)) < 0.5, w
            else:
                assert abs(end[0] - target["x"]) < 0.5 and abs(end[1] - (target["y"] + target["h"] / 2)) < 0.5, w
