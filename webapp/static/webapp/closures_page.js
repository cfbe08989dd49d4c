// "Close part of this trail": each tap on the map is snapped to the nearest place on the
// trail's line; the first two taps are the stretch's ends (drawn, with its length), a third
// starts over. The ends go in the form's hidden fields; the server snaps them again.
(function () {
  "use strict";
  const container = document.getElementById("closure-map");
  if (!container) return;
  const geometry = JSON.parse(document.getElementById("trail-geometry").textContent);
  const hint = document.getElementById("closure-hint");
  const map = window.webappBaseMap(container);
  const parts = (geometry.type === "LineString" ? [geometry.coordinates] : geometry.coordinates)
    .map((part) => part.map((c) => L.latLng(c[1], c[0])));
  const trail = L.polyline(parts, { color: "#1b7a34", weight: 5 }).addTo(map);
  map.fitBounds(trail.getBounds(), { padding: [24, 24] });
  const chosen = L.layerGroup().addTo(map);
  let ends = [];

  // The nearest place on the line, with its distance along it in metres.
  function snap(latLng) {
    const p = map.latLngToLayerPoint(latLng);
    let best = null;
    let along = 0;
    parts.forEach((part, partIndex) => {
      for (let i = 1; i < part.length; i += 1) {
        const a = map.latLngToLayerPoint(part[i - 1]);
        const b = map.latLngToLayerPoint(part[i]);
        const q = L.LineUtil.closestPointOnSegment(p, a, b);
        const d = p.distanceTo(q);
        const at = map.layerPointToLatLng(q);
        if (!best || d < best.distance) {
          best = { distance: d, latLng: at, part: partIndex, index: i, along: along + map.distance(part[i - 1], at) };
        }
        along += map.distance(part[i - 1], part[i]);
      }
    });
    return best;
  }

  // The line between two snapped places (in order along the line).
  function stretch(a, b) {
    const [first, last] = a.along <= b.along ? [a, b] : [b, a];
    const points = [first.latLng];
    parts.forEach((part, partIndex) => {
      part.forEach((point, i) => {
        const after = partIndex > first.part || (partIndex === first.part && i >= first.index);
        const before = partIndex < last.part || (partIndex === last.part && i < last.index);
        if (after && before) points.push(point);
      });
    });
    points.push(last.latLng);
    return { points: points, metres: last.along - first.along };
  }

  function lengthText(metres) {
    return metres < 1000 ? Math.round(metres) + " m" : (metres / 1000).toFixed(1) + " km";
  }

  function field(name) {
    return document.querySelector(`input[name="${name}"]`);
  }

  function show() {
    chosen.clearLayers();
    ends.forEach((end) => {
      L.circleMarker(end.latLng, { radius: 8, color: "#c0262d", fillOpacity: 1, className: "closure-end" }).addTo(chosen);
    });
    ["from", "to"].forEach((name, i) => {
      field(`${name}_lat`).value = ends[i] ? ends[i].latLng.lat.toFixed(7) : "";
      field(`${name}_lng`).value = ends[i] ? ends[i].latLng.lng.toFixed(7) : "";
    });
    if (ends.length === 2) {
      const line = stretch(ends[0], ends[1]);
      L.polyline(line.points, { color: "#c0262d", weight: 7, className: "closure-stretch" }).addTo(chosen);
      hint.textContent = hint.dataset.done.replace("{length}", lengthText(line.metres));
      hint.dataset.metres = String(Math.round(line.metres));
    } else {
      hint.textContent = ends.length ? hint.dataset.second : hint.dataset.first;
    }
  }

  map.on("click", (event) => {
    if (ends.length === 2) ends = [];
    ends.push(snap(event.latlng));
    show();
  });
})();
