/*
 * Closed stretches of trails on the public map, from /feeds/<id>/closures.geojson: each drawn
 * in the closed style over its trail (the rest of the trail keeps its own colour), with the
 * reason, the note, until when and the detour in its popup; a trail with one says "Partly
 * closed" (or "Closed" for a closure of the whole trail) in the list and in its popup. A
 * closure changes no map file: the live stream's `closures` events name the file's version
 * (its ETag), and the file is read again when that is not the one shown; also with each new
 * map file (a trail's line may have moved), and at the polls' pace while the stream is not
 * live. Everything is set as text, never parsed as HTML.
 */
(function () {
  "use strict";

  var trailMap = window.trailMap;
  if (!trailMap || !window.fetch) return;
  var config = JSON.parse(document.getElementById("map-config").textContent);
  var t = trailMap.texts;
  var el = trailMap.el;
  var map = trailMap.map;
  var CLOSED = "#c0262d";
  var DETOUR = "#1d4ed8";
  map.createPane("closures").style.zIndex = 450;
  var layer = L.layerGroup().addTo(map);
  var byTrail = {};
  var readFor = null;
  var version = null; // the file shown: its ETag, without W/ (a compressed answer) or quotes
  var until = new Intl.DateTimeFormat(config.language, {
    timeZone: config.timeZone || undefined,
    weekday: "short",
    hour: "2-digit",
    minute: "2-digit",
    timeZoneName: "short", // the system's zone, named: a rider elsewhere reads it right
  });

  // In the system's unit and the page's decimals, as the map's trail lengths.
  function lengthText(metres) {
    if (config.lengthMeasurement !== "miles" && metres < 1000) return Math.round(metres) + " m";
    return trailMap.distanceText(metres / 1000, 1);
  }

  function lines(geometry) {
    var parts = geometry.type === "LineString" ? [geometry.coordinates] : geometry.coordinates;
    return parts.map(function (part) {
      return part.map(function (c) { return [c[1], c[0]]; });
    });
  }

  // "Avalanche control · until Sat 14:00"
  function summary(properties) {
    var words = [properties.reasonText];
    if (properties.endsAt) words.push(trailMap.format(t.closed_until, { end: until.format(new Date(properties.endsAt)) }));
    return words.join(" \u00b7 ");
  }

  function popup(properties) {
    var box = el("div", "popup closure-popup");
    box.appendChild(el("h3", "popup-title", properties.trailName));
    var line = el("p", "popup-status");
    var badge = el("span", "status status-closed");
    badge.appendChild(el("span", "status-icon"));
    badge.appendChild(document.createTextNode(trailMap.format(t.closed_stretch, { length: lengthText(properties.lengthMeters) })));
    line.appendChild(badge);
    box.appendChild(line);
    box.appendChild(el("p", "closure-reason", summary(properties)));
    if (properties.note) box.appendChild(el("p", "closure-note", properties.note));
    if (properties.detour) box.appendChild(el("p", "closure-detour", trailMap.format(t.detour, { detour: properties.detour })));
    return box;
  }

  function draw(collection) {
    layer.clearLayers();
    collection.features.forEach(function (feature) {
      var properties = feature.properties;
      lines(feature.geometry).forEach(function (points) {
        layer.addLayer(L.polyline(points, { color: "#ffffff", weight: 9, opacity: 1, interactive: false, pane: "closures" }));
        var line = L.polyline(points, { color: CLOSED, weight: 5, opacity: 1, pane: "closures", className: "closure-line" });
        line.bindPopup(function () { return popup(properties); });
        line.bindTooltip(el("span", null, properties.trailName + " \u2013 " + t.closed_stretch_legend), { sticky: true });
        line.on("add", function () {
          line.getElement().setAttribute("data-closure-id", properties.id);
          line.getElement().setAttribute("data-trail-id", properties.trailId);
        });
        layer.addLayer(line);
        layer.addLayer(L.polyline(points, {
          color: "#ffffff", weight: 2.5, opacity: 1, lineCap: "round", dashArray: "0.1 7",
          interactive: false, pane: "closures",
        }));
      });
      if (properties.detourGeometry) {
        lines(properties.detourGeometry).forEach(function (points) {
          layer.addLayer(L.polyline(points, { color: DETOUR, weight: 3, dashArray: "6 6", pane: "closures", className: "detour-line" }));
        });
      }
    });
  }

  // Under a trail in the list and in its popup: "Partly closed: Avalanche control · until ...".
  trailMap.addDetails(function (properties) {
    var closures = byTrail[properties.trailId];
    if (!closures) return null;
    var whole = closures.some(function (p) { return p.wholeTrail; });
    var text = (whole ? t.closed : t.partly_closed) + ": " + closures.map(summary).join("; ");
    return el("p", "partly-closed", text);
  });

  function read() {
    readFor = document.body.getAttribute("data-file");
    fetch(config.closuresUrl, { cache: "no-store", credentials: "omit" })
      .then(function (response) {
        if (!response.ok) throw new Error(config.closuresUrl + " answered " + response.status);
        version = (response.headers.get("ETag") || "").replace(/^W\//, "").replace(/"/g, "");
        return response.json();
      })
      .then(function (collection) {
        var trails = {};
        collection.features.forEach(function (feature) {
          var id = feature.properties.trailId;
          (trails[id] || (trails[id] = [])).push(feature.properties);
        });
        var changed = JSON.stringify(trails) !== JSON.stringify(byTrail);
        byTrail = trails;
        draw(collection);
        document.body.setAttribute("data-closures", String(collection.features.length));
        if (changed) trailMap.redraw();
      })
      .catch(function () {
        readFor = null; // tried again with the next drawing
      });
  }

  document.addEventListener("trailmap:drawn", function () {
    if (document.body.getAttribute("data-file") !== readFor) read();
  });
  trailMap.onStream("closures", function (data) {
    if (data.version !== version) read();
  });
  // The stream, live at last or again after a break, may have missed an event (a closure
  // written between the first read and the stream's start, or during the break): read again
  // then, and at the polls' pace while there is none.
  document.addEventListener("trailmap:live", read);
  window.setInterval(function () {
    if (trailMap.connection() !== "live") read();
  }, trailMap.pollSeconds * 1000);
})();
