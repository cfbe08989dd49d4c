// The Grooming page's map: the system's trails, those the track groomed highlighted, and the
// track drawn over them. Data from the page's JSON script element (no inline script: CSP).
(function () {
  "use strict";
  function draw(container) {
    const data = JSON.parse(document.getElementById("grooming-map-data").textContent);
    const map = window.webappBaseMap(container);
    const trails = L.geoJSON(data.trails, {
      style: function (feature) {
        return feature.properties.groomed
          ? { color: "#1565c0", weight: 6, opacity: 0.9, className: "groomed-trail" }
          : { color: "#888", weight: 3, opacity: 0.7, className: "trail" };
      },
      onEachFeature: function (feature, layer) {
        // As text: a trail's name is whatever its managers typed.
        const name = document.createElement("span");
        name.textContent = feature.properties.name;
        layer.bindTooltip(name);
      },
    }).addTo(map);
    let bounds = trails.getBounds();
    if (data.track) {
      const track = L.geoJSON(data.track, {
        style: { color: "#d33", weight: 2, dashArray: "6 4", className: "grooming-track" },
        interactive: false,
      }).addTo(map);
      bounds = track.getBounds().isValid() ? track.getBounds() : bounds;
    }
    if (bounds.isValid()) {
      map.fitBounds(bounds, { padding: [20, 20] });
    } else {
      map.setView([45, -110], 3);
    }
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll(".grooming-map").forEach(draw);
  });
})();
