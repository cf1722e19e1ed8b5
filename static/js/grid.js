/* Review grids, progressive enhancements; every page works without them (a cell is a link to
   its own page, a review is a form, "All" with no single preset ticked means all of them).
   - The new-grid form: "All" ticks or clears every preset column, and is ticked when they all are.
   - Keyboard review on a grid, whenever the focus is not in a field:
       j / k        next / previous cell, row by row      arrows   move across and down
       Enter        open the cell in the side panel        c        confirm the cell
       e            correct it (the panel, its value field focused)
       u            undo the review                        o        open its provision in the reader
       Escape       from the panel back to the cell; on a cell, close the panel
     The reviews are the panel's own form's POSTs; the server sends the grid's cell back out of
     band, and the focus goes back to the cell the reviewer is on. */
(function () {
  "use strict";

  function setUpCheckAll() {
    Array.prototype.forEach.call(document.querySelectorAll("input[data-check-all]"), function (all) {
      var form = all.form;
      var name = all.getAttribute("data-check-all");
      function boxes() { return form.querySelectorAll('input[type="checkbox"][name="' + name + '"]'); }
      all.addEventListener("change", function () {
        Array.prototype.forEach.call(boxes(), function (b) { b.checked = all.checked; });
      });
      form.addEventListener("change", function (e) {
        if (e.target.name !== name) return;
        all.checked = Array.prototype.every.call(boxes(), function (b) { return b.checked; });
      });
    });
  }

  var current = null; // the id of the cell under review
  var correcting = null; // the id of the cell whose panel should open on its correction
  var focusValue = null; // the corrected-value input to focus once its panel has settled

  function onGrid() { return !!document.querySelector("[data-grid-review] #grid-live"); }
  function links() {
    return Array.prototype.slice.call(document.querySelectorAll("#grid-live td[data-cell] > a.cell"));
  }
  function tdOf(el) { return el && el.closest ? el.closest("#grid-live td[data-cell]") : null; }
  function tdById(id) { var l = id && document.getElementById("cell-link-" + id); return l ? tdOf(l) : null; }
  function currentTd() { return tdOf(document.activeElement) || tdById(current); }

  function mark(td) {
    Array.prototype.forEach.call(document.querySelectorAll("#grid-live td.current"), function (t) {
      if (t !== td) t.classList.remove("current");
    });
    if (td) { td.classList.add("current"); current = td.getAttribute("data-cell"); }
  }

  function focusCell(td, preventScroll) {
    var link = td && td.querySelector("a.cell");
    if (!link) return;
    mark(td);
    link.focus({ preventScroll: !!preventScroll }); // scroll-padding clears the sticky header
  }

  function step(delta) {
    var all = links();
    if (!all.length) return;
    var td = currentTd();
    var at = td ? all.indexOf(td.querySelector("a.cell")) : -1;
    var next = at < 0 ? (delta > 0 ? 0 : all.length - 1) : Math.min(all.length - 1, Math.max(0, at + delta));
    focusCell(tdOf(all[next]));
  }

  function move(dRow, dCol) {
    var td = currentTd();
    if (!td) { step(1); return; }
    var tr = td.parentElement;
    var col = Array.prototype.indexOf.call(tr.children, td);
    if (dCol) {
      for (var c = col + dCol; c >= 0 && c < tr.children.length; c += dCol) {
        if (tr.children[c].matches("td[data-cell]")) { focusCell(tr.children[c]); return; }
      }
      return;
    }
    var rows = Array.prototype.slice.call(tr.parentElement.children);
    for (var r = rows.indexOf(tr) + dRow; r >= 0 && r < rows.length; r += dRow) {
      var cand = rows[r].children[col];
      if (cand && cand.matches("td[data-cell]")) { focusCell(cand); return; }
    }
  }

  // The table carries the URLs' common parts once; a cell carries its ids (a data room's page
  // of 50 rows x 41 columns would otherwise repeat them 2,050 times).
  function cellUrl(td) {
    return td.closest("table").getAttribute("data-cells-url") + td.getAttribute("data-cell") + "/";
  }

  function readerUrl(td) {
    var ref = td.getAttribute("data-ref");
    return td.closest("table").getAttribute("data-documents-url") + td.getAttribute("data-doc") +
      "/" + (ref ? "#" + ref : "");
  }

  function review(td, status) {
    if (!window.htmx) return;
    window.htmx.ajax("POST", cellUrl(td) + "review/", {
      source: td, target: "#provision-panel", swap: "innerHTML", values: { review: status }
    });
  }

  function open(td, correct) {
    correcting = correct ? td.getAttribute("data-cell") : null;
    var link = td.querySelector("a.cell");
    if (link) link.click(); // htmx loads the panel (without htmx: the cell's own page)
  }

  function closePanel() {
    var panel = document.getElementById("provision-panel");
    if (!panel || !panel.querySelector(".panel-body")) return;
    panel.textContent = "";
    var p = document.createElement("p");
    p.className = "muted panel-empty";
    p.textContent = "Select a cell to read its quotation verbatim in its provision, and to confirm or correct it.";
    panel.appendChild(p);
  }

  function typing(el) {
    return el && el.closest && el.closest("input, textarea, select, [contenteditable=''], [contenteditable=true]");
  }

  function onKey(e) {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || !onGrid()) return;
    var inPanel = document.activeElement && document.activeElement.closest &&
      document.activeElement.closest("#provision-panel");
    if (e.key === "Escape") {
      // From the panel, or from nowhere (a review's swap has just removed the focused field and
      // htmx has not settled yet), Escape goes back to the cell under review.
      var lost = !document.activeElement || document.activeElement === document.body;
      if ((inPanel || lost) && tdById(current)) { focusCell(tdById(current)); e.preventDefault(); }
      else if (tdOf(document.activeElement)) { closePanel(); e.preventDefault(); }
      return;
    }
    if (typing(e.target)) return;
    var onCell = !!tdOf(document.activeElement);
    var td;
    switch (e.key) {
      case "j": step(1); break;
      case "k": step(-1); break;
      case "ArrowRight": if (!onCell) return; move(0, 1); break;
      case "ArrowLeft": if (!onCell) return; move(0, -1); break;
      case "ArrowDown": if (!onCell) return; move(1, 0); break;
      case "ArrowUp": if (!onCell) return; move(-1, 0); break;
      case "c": case "e": case "u": case "o":
        td = currentTd();
        if (!td) return;
        mark(td);
        if (e.key === "c") review(td, "confirmed");
        else if (e.key === "u") review(td, "none");
        else if (e.key === "e") open(td, true);
        else window.location.assign(readerUrl(td));
        break;
      default: return;
    }
    e.preventDefault();
  }

  function afterSwap(e) {
    var target = e.detail && e.detail.target;
    if (!target || target.id !== "provision-panel") return;
    var body = target.querySelector(".panel-body");
    var id = body && body.getAttribute("data-cell");
    if (id && tdById(id)) mark(tdById(id));
    if (correcting && id === correcting) {
      correcting = null;
      var radio = target.querySelector('input[name="review"][value="corrected"]');
      if (radio) radio.checked = true;
      // The value takes the focus once htmx has settled the panel and wired its form: an Enter
      // pressed before then would post the form as a plain page.
      focusValue = target.querySelector('input[name="value"]');
    }
  }

  function afterSettle() {
    if (focusValue) {
      var value = focusValue;
      focusValue = null;
      if (document.contains(value)) { value.focus(); value.select(); return; }
    }
    // A review swaps the panel and the grid's cell (out of band): the element that had the
    // focus is gone, so the focus goes back to the cell under review.
    if (!onGrid() || !current) return;
    var active = document.activeElement;
    if (active && active !== document.body && document.contains(active)) return;
    var td = tdById(current);
    if (td) focusCell(td, true);
  }

  function init() {
    setUpCheckAll();
    document.addEventListener("keydown", onKey);
    document.addEventListener("focusin", function (e) { var td = tdOf(e.target); if (td) mark(td); });
    document.addEventListener("htmx:afterSwap", afterSwap);
    document.addEventListener("htmx:afterSettle", afterSettle);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
