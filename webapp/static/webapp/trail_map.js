// Map preview of a trail's GeoJSON geometry on its admin page; redrawn as the text changes.
(function () {
  "use strict";
  function draw(container) {
    const input = document.getElementById(container.dataset.geometryInput);
    const map = window.webappBaseMap(container);
    let layer = null;
    function redraw() {
      let geometry;
      try {
        geometry = JSON.parse(input.value);
      } catch (error) {
        return;
      }
      if (layer) {
        map.removeLayer(layer);
      }
      layer = L.geoJSON(geometry, { style: { color: "#d33", weight: 4 } }).addTo(map);
      if (layer.getBounds().isValid()) {
        map.fitBounds(layer.getBounds(), { padding: [20, 20] });
      }
    }
    input.addEventListener("change", redraw);
    redraw();
    if (!layer) {
      map.setView([45, -110], 3);
    }
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll(".trail-map").forEach(draw);
  });
})();
