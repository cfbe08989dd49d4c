"use strict";
// Every page of the web app. Each cell of a list, of a table of inline rows and of another
// table marked phone-cards gets its column's name as data-label, which the phone layout (site.css) shows beside the value. A
// Copy button (data-copy: the id of the field or link it copies) puts that value on the
// clipboard, or selects the field where the browser keeps the clipboard to itself.
document.addEventListener("DOMContentLoaded", function () {
  const tables = "#result_list, .inline-group .tabular table, table.phone-cards";
  document.querySelectorAll(tables).forEach(function (table) {
    const names = Array.from(table.querySelectorAll("thead th"), function (th) {
      return th.textContent.replace(/\s+/g, " ").trim();
    });
    table.querySelectorAll("tbody tr").forEach(function (row) {
      Array.from(row.children).forEach(function (cell, index) {
        if (names[index] && !cell.hasAttribute("colspan")) cell.dataset.label = names[index];
      });
    });
  });
});

document.addEventListener("click", function (event) {
  const button = event.target.closest("button[data-copy]");
  if (!button) return;
  const source = document.getElementById(button.dataset.copy);
  const text = "value" in source ? source.value : source.href || source.textContent;
  function copied() {
    button.textContent = button.dataset.copied;
  }
  function selectIt() {
    if (source.select) {
      source.select();
      if (document.execCommand("copy")) copied();
    }
  }
  if (navigator.clipboard) navigator.clipboard.writeText(text).then(copied, selectIt);
  else selectIt();
});
