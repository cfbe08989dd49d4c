// A Leaflet map in `container` for the web app's pages, with a base map only where
// MAP_TILE_URL names a tile server (the container's data-tile-url); else a plain background.
window.webappBaseMap = function (container) {
  "use strict";
  const map = L.map(container, { scrollWheelZoom: false });
  if (container.dataset.tileUrl) {
    L.tileLayer(container.dataset.tileUrl, {
      maxZoom: 18,
      attribution: container.dataset.tileAttribution,
    }).addTo(map);
  }
  return map;
};
