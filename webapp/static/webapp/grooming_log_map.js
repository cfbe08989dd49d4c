// The Grooming log's map: the period's passes, each drawn in its machine's colour. Data from
// the page's JSON script element (no inline script: CSP).
(function () {
  "use strict";
  function draw(container) {
    const data = JSON.parse(document.getElementById("log-map-data").textContent);
    const map = window.webappBaseMap(container);
    const passes = L.geoJSON(data, {
      style: function (feature) {
        return { color: feature.properties.colour, weight: 3, opacity: 0.85 };
      },
      onEachFeature: function (feature, layer) {
        // As text: a machine's name is whatever its managers typed.
        const name = document.createElement("span");
        name.textContent = feature.properties.machine;
        layer.bindTooltip(name);
      },
    }).addTo(map);
    if (passes.getBounds().isValid()) {
      map.fitBounds(passes.getBounds(), { padding: [20, 20] });
    } else {
      map.setView([45, -110], 3);
    }
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll(".log-map").forEach(draw);
  });
})();
