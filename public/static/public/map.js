/*
 * The public trail map: draws a trail system's published file with Leaflet and lists its
 * trails, notices, snow report and weather beside it.
 *
 * The current file's address comes from the legacy system document (geoJsonUrl), read again
 * every `pollSeconds`; a new address means a new compile, and the new file replaces the old
 * one. Settings and words arrive in the JSON script element #map-config, so the page needs
 * no inline script. Everything shown is built with textContent, never parsed as HTML.
 */
(function () {
  "use strict";

  var config = JSON.parse(document.getElementById("map-config").textContent);
  var t = config.texts;
  var STATUSES = ["Open", "Caution", "Closed"];
  // Also in public.css; each gives at least 4.5:1 on white (WCAG 2.1 AA, text and lines).
  var COLOURS = { Open: "#1b7a34", Caution: "#975400", Closed: "#c0262d" };
  var LIFT_CASING = "#1f2937";
  var DIFFICULTIES = {
    circle: "difficulty_circle",
    square: "difficulty_square",
    diamond: "difficulty_diamond",
    doubleDiamond: "difficulty_doubleDiamond",
    terrainPark: "difficulty_terrainPark",
  };
  var MARKER_GLYPHS = {
    bar: "\u2615", cabin: "\u2302", dining: "\u2615", "dog-park": "D", "fallen-tree": "\u26a0",
    "first-aid": "\u271a", fishing: "F", generic: "\u2022", hazard: "\u26a0", ice: "\u2744",
    "ice-rink": "\u2744", lodge: "\u2302", lodging: "\u2302", mud: "\u26a0", parking: "P",
    "parking-busy": "P", "parking-very-busy": "P", playground: "\u263a", restaurant: "\u2615",
    restroom: "WC", scenic: "\u2605", star: "\u2605", trailhead: "\u2691", "wait-time": "\u25f7",
    "water-access": "\u2248", "web-cam": "\u25c9", yurt: "\u2302",
  };
  var SNOW_FIGURES = [
    "baseDepth", "twentyFourHours", "fourtyEightHours", "sevenDays", "seasonTotal",
    "lastSnowAmount", "upperElevationDepth",
  ];
  var DEPTH_UNITS = { inches: "in", centimeters: "cm" };
  var KM_PER_MILE = 1.609344;

  var state = {
    url: null, system: null, collection: null, activity: "", fitted: false,
    connection: "connecting", updatedAt: null, unconfirmed: {},
  };
  var trailGroups = {};
  var liftTrails = {};

  // A popup opens clear of the controls drawn above it: along the map's top (zoom, "Live",
  // the view switch), which would hide its trail's name, and along its foot (the legend,
  // "Report a problem"); the closures' popups too.
  var POPUP_TOP = 96;
  L.Popup.mergeOptions({ autoPanPaddingTopLeft: L.point(8, POPUP_TOP), autoPanPaddingBottomRight: L.point(8, 72) });
  var map = L.map("map", { keyboard: true, zoomSnap: 0.5, attributionControl: true });
  // Other scripts add to a popup once it is open (alerts.js its Follow button), after Leaflet
  // panned it: once they have, its grown top is brought clear of the controls again.
  map.on("popupopen", function (event) {
    window.setTimeout(function () {
      var element = event.popup.getElement();
      if (!element || !map.hasLayer(event.popup)) return;
      var top = map.getContainer().getBoundingClientRect().top + POPUP_TOP;
      var hidden = top - element.getBoundingClientRect().top;
      if (hidden > 0) map.panBy([0, -hidden]);
    }, 0);
  });
  map.attributionControl.setPrefix(false);
  if (config.tileUrl) {
    L.tileLayer(config.tileUrl, { attribution: config.tileAttribution, maxZoom: 19 }).addTo(map);
  } else {
    map.getContainer().classList.add("no-tiles");
  }
  map.createPane("lifts").style.zIndex = 430;
  map.createPane("symbols").style.zIndex = 460;
  var drawn = L.layerGroup().addTo(map);
  // Where the system is until its trails are drawn; a continent for one without a place.
  if (config.centre) map.setView(config.centre, 13);
  else map.setView([45, -100], 3);
  map.on("zoomend", function () {
    map.getContainer().classList.toggle("zoomed-out", map.getZoom() < 14);
  });

  // Small helpers

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  function format(template, values) {
    return template.replace(/\{(\w+)\}/g, function (_, key) {
      return values[key];
    });
  }

  // A counted message's words for n, as gettext chose them for one and for several
  // (public/texts.py `plural_forms`), by the page language's plural rule.
  var pluralRules = new Intl.PluralRules(config.language);
  function plural(forms, n) {
    return pluralRules.select(n) === "one" ? forms.one : forms.other;
  }

  function toDate(value) {
    if (!value) return null;
    if (typeof value === "string") return new Date(value);
    if (typeof value._seconds === "number") return new Date(value._seconds * 1000);
    return null;
  }

  function ago(value) {
    var date = toDate(value);
    if (!date || isNaN(date)) return "";
    var minutes = Math.floor((Date.now() - date.getTime()) / 60000);
    if (minutes < 1) return t.just_now;
    if (minutes < 60) return format(t.ago_minutes, { n: minutes });
    var hours = Math.floor(minutes / 60);
    if (hours < 48) return format(t.ago_hours, { n: hours });
    return format(t.ago_days, { n: Math.floor(hours / 24) });
  }

  // Hooks for the add-ons loaded beside this script (grooming_view.js, report.js): the map,
  // the file's features, each trail's drawn lines, the words, extra lines under a trail's
  // details, a redraw, other events of the live stream (registered before it opens), and the
  // stream's state (also told as a "trailmap:connection" event, and its going live as
  // "trailmap:live") with the polling pace.
  var detailHooks = [];
  var streamEvents = {};
  window.trailMap = {
    map: map, texts: t, ago: ago, el: el, format: format, pollSeconds: config.pollSeconds,
    distanceText: distanceText,
    features: function () { return state.collection ? state.collection.features : []; },
    lines: function () { return trailGroups; },
    addDetails: function (hook) { detailHooks.push(hook); },
    redraw: function () { if (state.collection) render(); },
    onStream: function (name, handle) { streamEvents[name] = handle; },
    connection: function () { return state.connection; },
  };

  function statusLabel(status) {
    return t[String(status).toLowerCase()] || status;
  }

  function statusBadge(status) {
    var badge = el("span", "status status-" + String(status).toLowerCase());
    badge.appendChild(el("span", "status-icon"));
    badge.lastChild.setAttribute("aria-hidden", "true");
    badge.appendChild(document.createTextNode(statusLabel(status)));
    return badge;
  }

  function difficultySymbol(difficulty) {
    var key = DIFFICULTIES[difficulty];
    if (!key) return null;
    var symbol = el("span", "difficulty difficulty-" + difficulty);
    symbol.setAttribute("role", "img");
    symbol.setAttribute("aria-label", t[key]);
    symbol.title = t[key];
    return symbol;
  }

  // In the system's unit, from the page's config: the system document may come after the
  // file is drawn, and lengths read from it were in km on one load and in miles on another.
  // The decimal separator is the page's language's ("0,4 km").
  var MILES = config.lengthMeasurement === "miles";
  function distanceText(km, decimals) {
    if (typeof km !== "number") return "";
    var value = MILES ? km / KM_PER_MILE : km;
    var places = decimals !== undefined ? decimals : value < 10 ? 1 : 0;
    var number = new Intl.NumberFormat(config.language, {
      minimumFractionDigits: places, maximumFractionDigits: places,
    });
    return number.format(value) + (MILES ? " mi" : " km");
  }

  function activityFor(properties) {
    if (!state.activity) return null;
    return (properties.activities || []).find(function (a) {
      return a.value === state.activity;
    });
  }

  // The trail's status, or its activity's status when the list is filtered by activity.
  function shownStatus(properties) {
    var activity = activityFor(properties);
    return activity ? activity.status : properties.status;
  }

  function isShown(properties) {
    if (properties.hidden) return false;
    if (!state.activity || properties.type === "Lift") return true;
    return Boolean(activityFor(properties));
  }

  // Map drawing

  function latLngs(coordinates) {
    return coordinates.map(function (c) {
      return [c[1], c[0]];
    });
  }

  // A point at `fraction` of the line's length and the screen angle of travel there.
  function alongLine(points, fraction) {
    var projected = points.map(function (p) {
      return L.CRS.EPSG3857.project(L.latLng(p));
    });
    var lengths = [0];
    for (var i = 1; i < projected.length; i++) {
      lengths.push(lengths[i - 1] + projected[i].distanceTo(projected[i - 1]));
    }
    var target = lengths[lengths.length - 1] * fraction;
    for (var j = 1; j < projected.length; j++) {
      if (lengths[j] >= target) {
        var a = projected[j - 1], b = projected[j];
        var part = lengths[j] === lengths[j - 1] ? 0 : (target - lengths[j - 1]) / (lengths[j] - lengths[j - 1]);
        var at = L.point(a.x + (b.x - a.x) * part, a.y + (b.y - a.y) * part);
        var degrees = (Math.atan2(-(b.y - a.y), b.x - a.x) * 180) / Math.PI;
        return { latLng: L.CRS.EPSG3857.unproject(at), degrees: degrees };
      }
    }
    return { latLng: L.latLng(points[0]), degrees: 0 };
  }

  function symbolMarker(latLng, className, child) {
    var holder = el("div");
    holder.appendChild(child);
    return L.marker(latLng, {
      icon: L.divIcon({ className: className, html: holder, iconSize: [16, 16] }),
      interactive: false,
      keyboard: false,
      pane: "symbols",
    });
  }

  function oneWayArrows(points, properties, layers) {
    var line = properties.oneWayReversed ? points.slice().reverse() : points;
    [0.5].concat(properties.distance > 1.5 ? [0.2, 0.8] : []).forEach(function (fraction) {
      var at = alongLine(line, fraction);
      var arrow = el("span", "arrow");
      arrow.style.transform = "rotate(" + at.degrees + "deg)";
      var className = "oneway-arrow" + (properties.type === "Lift" ? " on-lift" : "");
      layers.push(symbolMarker(at.latLng, className, arrow));
    });
  }

  function trailPopup(properties) {
    var box = el("div", "popup");
    var title = el("h3", "popup-title");
    var symbol = difficultySymbol(properties.difficulty);
    if (symbol) title.appendChild(symbol);
    title.appendChild(document.createTextNode(properties.name));
    box.appendChild(title);
    var line = el("p", "popup-status");
    line.appendChild(statusBadge(properties.status));
    if (properties.type === "Lift") line.appendChild(el("span", "tag", t.lift));
    if (properties.oneWay) line.appendChild(el("span", "tag", t.one_way));
    if (properties.distance) line.appendChild(el("span", "tag", distanceText(properties.distance)));
    box.appendChild(line);
    appendTrailDetails(box, properties);
    if (properties.description) box.appendChild(el("p", "popup-description", properties.description));
    return box;
  }

  // A trail Open or Caution whose every activity is Closed says so (set by the API's rule).
  function everyActivityClosed(properties) {
    var activities = properties.activities || [];
    return properties.status !== "Closed" && activities.length > 0 && activities.every(function (a) {
      return a.status === "Closed";
    });
  }

  // Activities, surface conditions with their age, and notices attached to the trail.
  function appendTrailDetails(parent, properties) {
    if (everyActivityClosed(properties)) parent.appendChild(el("p", "all-closed", t.every_activity_closed));
    if (properties.trailId in state.unconfirmed) {
      var confirmedOn = state.unconfirmed[properties.trailId];
      var words = confirmedOn ? format(t.unconfirmed_since, { ago: ago(confirmedOn) }) : t.never_confirmed;
      parent.appendChild(el("p", "unconfirmed", words));
    }
    var activities = properties.activities || [];
    if (activities.length) {
      var list = el("ul", "activities");
      activities.forEach(function (activity) {
        var item = el("li", "activity", format(t.label_colon, { label: activity.label }));
        item.appendChild(statusBadge(activity.status));
        list.appendChild(item);
      });
      parent.appendChild(list);
    }
    var updates = properties.updates || {};
    (updates.surfaceConditions || []).slice(0, 1).forEach(function (update) {
      var conditions = update.conditions || [];
      var text = conditions.map(function (c) {
        return c.text;
      }).join(", ");
      var line = el("p", "conditions", text + " \u00b7 " + ago(update.updatedOn));
      if (conditions.some(function (c) { return (config.groomingConditions || []).indexOf(c.value) >= 0; })) {
        line.setAttribute("data-groomed", "");
      }
      parent.appendChild(line);
    });
    (updates.notice || []).forEach(function (notice) {
      parent.appendChild(noticeItem(notice, "p"));
    });
    detailHooks.forEach(function (hook) {
      var node = hook(properties);
      if (node) parent.appendChild(node);
    });
  }

  // The trail's lines into `layers`; its arrows and difficulty symbol, which a first look
  // does without, into `later` (drawn once the lines are painted).
  function drawTrail(feature, layers, later) {
    var properties = feature.properties;
    var status = shownStatus(properties);
    var lift = properties.type === "Lift";
    var pane = lift ? "lifts" : "overlayPane";
    var points = latLngs(feature.geometry.coordinates);
    var casing = L.polyline(points, {
      color: lift ? LIFT_CASING : "#ffffff", weight: lift ? 8 : 7, opacity: 1,
      interactive: false, pane: pane, className: "trail-casing",
    });
    var line = L.polyline(points, {
      color: COLOURS[status], weight: lift ? 3 : 4, opacity: 1, pane: pane,
      dashArray: properties.lineStyle === "Dashed" ? "8 7" : null,
      className: "trail-line" + (lift ? " lift-line" : ""),
    });
    line.bindPopup(function () {
      return trailPopup(properties);
    });
    // A node, never a string: Leaflet parses a string as HTML, and a name is whatever its
    // managers typed.
    line.bindTooltip(el("span", null, properties.name + " \u2013 " + statusLabel(status)), {
      sticky: true,
    });
    layers.push(casing, line);
    if (status !== "Open") {
      layers.push(L.polyline(points, {
        color: "#ffffff", weight: status === "Closed" ? 2.5 : 1.5, opacity: 1, lineCap: "round",
        dashArray: status === "Closed" ? "0.1 7" : "3 8", interactive: false, pane: pane,
        className: "status-pattern pattern-" + status.toLowerCase(),
      }));
    }
    later.push(function (symbols) {
      if (properties.oneWay) oneWayArrows(points, properties, symbols);
      if (properties.showInLists && !lift) {
        var symbol = difficultySymbol(properties.difficulty);
        if (symbol) symbols.push(symbolMarker(alongLine(points, 0.35).latLng, "difficulty-marker", symbol));
      }
    });
    var group = trailGroups[properties.trailId] || (trailGroups[properties.trailId] = []);
    group.push(line);
    if (lift) liftTrails[properties.trailId] = true;
    line.on("add", function () {
      var path = line.getElement();
      path.setAttribute("data-trail-id", properties.trailId);
      path.setAttribute("data-status", status);
    });
  }

  function drawPoint(feature, layers) {
    var properties = feature.properties;
    var c = feature.geometry.coordinates;
    var glyph = el("span", "poi-glyph", MARKER_GLYPHS[properties.markerClass] || "\u2022");
    glyph.setAttribute("aria-hidden", "true");
    var holder = el("div");
    holder.appendChild(glyph);
    var label = properties.name + " \u2013 " + statusLabel(properties.status);
    var marker = L.marker([c[1], c[0]], {
      icon: L.divIcon({
        className: "poi poi-" + properties.markerClass + " status-" + properties.status.toLowerCase(),
        html: holder, iconSize: [28, 28],
      }),
      title: label, alt: label, keyboard: true, riseOnHover: true,
    });
    marker.bindPopup(function () {
      var box = el("div", "popup");
      box.appendChild(el("h3", "popup-title", properties.name));
      var line = el("p", "popup-status");
      line.appendChild(statusBadge(properties.status));
      if (typeof properties.waitTime === "number") {
        line.appendChild(el("span", "tag", format(t.wait_time, { n: properties.waitTime })));
      }
      box.appendChild(line);
      return box;
    });
    marker.on("add", function () {
      var icon = marker.getElement();
      icon.setAttribute("data-point-id", properties.pointId);
      icon.setAttribute("data-status", properties.status);
      icon.setAttribute("role", "button");
      icon.setAttribute("aria-label", label);
    });
    layers.push(marker);
  }

  function median(values) {
    var sorted = values.slice().sort(function (a, b) {
      return a - b;
    });
    return sorted[Math.floor(sorted.length / 2)];
  }

  // The first view: the system's main trails and its lifts, not its longest outlying route.
  // Each drawn trail counts once, at the centre of its bounds; the trails whose centres lie in
  // the circle around the median centre that holds MAIN_SHARE of them, and every lift, make
  // the view. A system of a few trails, or of points only, is shown whole.
  var MAIN_SHARE = 0.85;
  var FEW_TRAILS = 5;

  function mainBounds(layers) {
    var ids = Object.keys(trailGroups);
    if (ids.length < FEW_TRAILS) return L.featureGroup(layers).getBounds();
    var bounds = ids.map(function (id) {
      return L.featureGroup(trailGroups[id]).getBounds();
    });
    var centres = bounds.map(function (b) {
      return b.getCenter();
    });
    var middle = L.latLng(
      median(centres.map(function (c) { return c.lat; })),
      median(centres.map(function (c) { return c.lng; }))
    );
    var distances = centres.map(function (c) {
      return middle.distanceTo(c);
    });
    var limit = distances.slice().sort(function (a, b) {
      return a - b;
    })[Math.ceil(MAIN_SHARE * distances.length) - 1];
    var view = L.latLngBounds([]);
    ids.forEach(function (id, i) {
      if (distances[i] <= limit || liftTrails[id]) view.extend(bounds[i]);
    });
    return view;
  }

  var drawings = 0;

  function drawCollection() {
    var layers = [];
    var later = [];
    var drawing = ++drawings;
    trailGroups = {};
    liftTrails = {};
    state.collection.features.forEach(function (feature) {
      var properties = feature.properties || {};
      if (!feature.geometry || !isShown(properties)) return;
      if (properties.trailId !== undefined && feature.geometry.type === "LineString") {
        drawTrail(feature, layers, later);
      } else if (properties.pointId !== undefined && feature.geometry.type === "Point") {
        drawPoint(feature, layers);
      }
    });
    // The view first (bounds need no drawn line), so each line is drawn once, where it stays;
    // no trail under the "Report a problem" button at the bottom right (public/report.css).
    if (!state.fitted && layers.length) {
      map.fitBounds(mainBounds(layers), {
        paddingTopLeft: [20, 20],
        paddingBottomRight: [20, 84],
        maxZoom: 16,
        animate: false,
      });
      state.fitted = true;
    }
    drawn.clearLayers();
    layers.forEach(function (layer) {
      drawn.addLayer(layer);
    });
    afterPaint(function () {
      if (drawing !== drawings) return; // drawn again since
      var symbols = [];
      later.forEach(function (draw) {
        draw(symbols);
      });
      symbols.forEach(function (layer) {
        drawn.addLayer(layer);
      });
    });
  }

  // Side panel

  function noticeItem(notice, tag) {
    var severity = notice.severity || "info";
    var item = el(tag, "notice severity-" + severity);
    item.appendChild(el("strong", "severity", format(t.label_colon, { label: t[severity] })));
    item.appendChild(document.createTextNode(notice.description || ""));
    if (notice.linkUrl && /^https?:\/\//i.test(notice.linkUrl)) {
      var link = el("a", "notice-link", t.more);
      link.href = notice.linkUrl;
      link.rel = "noopener";
      item.appendChild(document.createTextNode(" "));
      item.appendChild(link);
    }
    var age = ago(notice.updatedOn);
    if (age) item.appendChild(el("span", "age", " \u00b7 " + age));
    return item;
  }

  function showSection(id, filled) {
    var section = document.getElementById(id);
    if (section) section.hidden = !filled;
    return section;
  }

  function renderNotices(system) {
    var notices = (system.updates && system.updates.notice) || [];
    var section = showSection("notices", notices.length > 0);
    if (!section) return;
    var list = section.querySelector("ul");
    list.replaceChildren();
    notices.forEach(function (notice) {
      list.appendChild(noticeItem(notice, "li"));
    });
  }

  function renderSnow(system) {
    var report = system.updates && system.updates.snowReport && system.updates.snowReport[0];
    var section = showSection("snow", Boolean(report));
    if (!section || !report) return;
    var unit = DEPTH_UNITS[system.depthMeasurement] || system.depthMeasurement || "";
    var figures = section.querySelector("dl");
    figures.replaceChildren();
    function add(label, value) {
      figures.appendChild(el("dt", null, label));
      figures.appendChild(el("dd", null, value));
    }
    SNOW_FIGURES.forEach(function (name) {
      if (typeof report[name] === "number") add(t[name], report[name] + " " + unit);
    });
    var lastSnow = toDate(report.lastSnowDate);
    if (lastSnow) {
      var when = lastSnow.toLocaleDateString(config.language, { month: "short", day: "numeric" });
      add(t.lastSnowDate, when + (report.lastSnowTime ? " " + report.lastSnowTime : ""));
    }
  }

  function renderWeather(system) {
    var weather = system.weather;
    var section = showSection("weather", Boolean(weather && typeof weather.temperature === "number"));
    if (!section || !section.querySelector || !weather || typeof weather.temperature !== "number") return;
    var fahrenheit = system.tempMeasurement === "fahrenheit";
    function temperature(celsius) {
      return Math.round(fahrenheit ? (celsius * 9) / 5 + 32 : celsius) + (fahrenheit ? " \u00b0F" : " \u00b0C");
    }
    var parts = [];
    if (weather.description) parts.push(weather.description);
    parts.push(temperature(weather.temperature));
    if (typeof weather.apparentTemperature === "number") {
      parts.push(t.feels_like + " " + temperature(weather.apparentTemperature));
    }
    if (typeof weather.windSpeed === "number") {
      var miles = system.lengthMeasurement === "miles";
      var speed = miles ? weather.windSpeed / KM_PER_MILE : weather.windSpeed;
      parts.push(t.wind + " " + Math.round(speed) + (miles ? " mph" : " km/h"));
    }
    var age = ago(weather.observedAt);
    section.querySelector("p").textContent = parts.join(", ") + (age ? " \u00b7 " + age : "");
  }

  function renderFilter() {
    var select = document.getElementById("activity-filter");
    if (!select) return;
    var seen = {};
    state.collection.features.forEach(function (feature) {
      var properties = feature.properties || {};
      if (properties.hidden) return;
      (properties.activities || []).forEach(function (activity) {
        seen[activity.value] = activity.label;
      });
    });
    var current = state.activity;
    while (select.options.length > 1) select.remove(1);
    Object.keys(seen).sort(function (a, b) {
      return seen[a].localeCompare(seen[b]);
    }).forEach(function (value) {
      var option = el("option", null, seen[value]);
      option.value = value;
      select.appendChild(option);
    });
    select.value = seen[current] ? current : "";
    state.activity = select.value;
  }

  function focusTrail(trailId) {
    var lines = trailGroups[trailId] || [];
    if (!lines.length) return;
    // On a phone the list is below the map: bring the map into view, or the tap shows nothing.
    var box = map.getContainer().getBoundingClientRect();
    if (box.top < 0 || box.bottom > window.innerHeight) map.getContainer().scrollIntoView({ block: "start" });
    // Not animated: a popup opened during the zoom is placed before the view settles, under the
    // controls; opened on the settled view, it pans clear of them.
    map.fitBounds(L.featureGroup(lines).getBounds(), { padding: [40, 40], maxZoom: 16, animate: false });
    lines[0].openPopup();
  }

  // Trails that share a name ("twins") say what tells them apart in the list: their
  // categories, their length (to 10 m when 100 m leaves two alike) and where they lie among
  // their twins; a tap shows the trail on the map.
  var PARTS = ["part_n", "part_ne", "part_e", "part_se", "part_s", "part_sw", "part_w", "part_nw"];
  var twinWords = {};

  function centreOf(trailId) {
    var lines = trailGroups[trailId] || [];
    return lines.length ? L.featureGroup(lines).getBounds().getCenter() : null;
  }

  function partAmong(centre, centres) {
    if (!centre || centres.length < 2) return "";
    var lat = centres.reduce(function (sum, c) { return sum + c.lat; }, 0) / centres.length;
    var lng = centres.reduce(function (sum, c) { return sum + c.lng; }, 0) / centres.length;
    var north = centre.lat - lat;
    var east = (centre.lng - lng) * Math.cos((lat * Math.PI) / 180);
    if (Math.abs(north) + Math.abs(east) < 1e-6) return "";
    var degrees = ((Math.atan2(east, north) * 180) / Math.PI + 360) % 360;
    return t[PARTS[Math.round(degrees / 45) % 8]];
  }

  function findTwins(trails) {
    var byName = {};
    trails.forEach(function (p) {
      var key = String(p.name).trim().toLowerCase();
      (byName[key] = byName[key] || []).push(p);
    });
    twinWords = {};
    Object.keys(byName).forEach(function (key) {
      var twins = byName[key];
      if (twins.length < 2) return;
      var lengths = twins.map(function (p) { return distanceText(p.distance); });
      var alike = lengths.some(function (length, i) { return lengths.indexOf(length) !== i; });
      var centres = twins.map(function (p) { return centreOf(p.trailId); });
      var placed = centres.filter(Boolean);
      twins.forEach(function (p, i) {
        var words = [
          (p.categories || []).join(", "),
          alike ? distanceText(p.distance, 2) : lengths[i],
          partAmong(centres[i], placed),
        ];
        twinWords[p.trailId] = words.filter(Boolean).join(" \u00b7 ");
      });
    });
  }

  function trailItem(properties) {
    var item = el("li", "trail-item");
    var button = el("button", "trail-button");
    button.type = "button";
    var symbol = difficultySymbol(properties.difficulty);
    if (symbol) button.appendChild(symbol);
    button.appendChild(el("span", "trail-name", properties.name));
    if (twinWords[properties.trailId]) button.appendChild(el("span", "twin-details", twinWords[properties.trailId]));
    button.appendChild(el("span", "visually-hidden", " \u2013 " + statusLabel(shownStatus(properties))));
    button.addEventListener("click", function () {
      focusTrail(properties.trailId);
    });
    item.appendChild(button);
    appendTrailDetails(item, properties);
    return item;
  }

  function renderList() {
    var holder = document.getElementById("trail-groups");
    if (!holder) return;
    var listed = state.collection.features
      .map(function (feature) { return feature.properties || {}; })
      .filter(function (p) { return p.trailId !== undefined && p.showInLists; });
    findTwins(listed);
    var trails = listed.filter(isShown);
    var groups = STATUSES.map(function (status) {
      return { status: status, title: statusLabel(status), trails: [] };
    });
    var lifts = { status: null, title: t.lifts, trails: [] };
    trails.forEach(function (p) {
      if (p.type === "Lift") lifts.trails.push(p);
      else groups[Math.max(STATUSES.indexOf(shownStatus(p)), 0)].trails.push(p);
    });
    holder.replaceChildren();
    groups.concat([lifts]).forEach(function (group) {
      if (!group.trails.length) return;
      var section = el("section", "trail-group" + (group.status ? " group-" + group.status.toLowerCase() : " group-lifts"));
      var heading = el("h3", "group-heading");
      if (group.status) heading.appendChild(statusBadge(group.status));
      else heading.appendChild(document.createTextNode(group.title));
      heading.appendChild(el("span", "count", " (" + group.trails.length + ")"));
      section.appendChild(heading);
      var list = el("ul", "trail-list");
      group.trails.forEach(function (p) {
        var item = trailItem(p);
        if (!group.status) item.querySelector(".trail-button").after(statusBadge(p.status));
        list.appendChild(item);
      });
      section.appendChild(list);
      holder.appendChild(section);
    });
    if (!trails.length) holder.appendChild(el("p", null, t.no_trails));
  }

  // After the browser has painted what is drawn: a phone's first render shows the lines
  // before the list, the filter and the panel are built. Queued work runs once, in order.
  var afterPaintQueue = [];
  function afterPaint(work) {
    afterPaintQueue.push(work);
    if (afterPaintQueue.length > 1) return;
    window.requestAnimationFrame(function () {
      window.setTimeout(function () {
        var queued = afterPaintQueue;
        afterPaintQueue = [];
        queued.forEach(function (run) {
          run();
        });
      }, 0);
    });
  }

  function renderPanel() {
    var activity = state.activity;
    renderFilter();
    if (state.activity !== activity) drawCollection(); // the chosen activity is gone
    renderList();
    document.dispatchEvent(new CustomEvent("trailmap:drawn"));
  }

  // The lines now; the list and the filter after they are painted.
  function render() {
    drawCollection();
    afterPaint(renderPanel);
  }

  // Loading and following changes

  var statusLine = document.getElementById("map-status");
  var changesBox = document.getElementById("map-changes");
  var CHANGES_SHOWN = 3;
  var CHANGES_SECONDS = 10;
  var loads = 0; // the newest load shown, so a slow older one never replaces it
  var shownLoad = 0;
  var changesTimer = null;

  // When the data shown was published (the compile's time when known, else when it arrived),
  // and whether the page is live: the phone's answer to "is this current?".
  function showStatus() {
    if (statusLine.classList.contains("failed") || !state.updatedAt) return;
    statusLine.textContent = window.trailLive.statusText(
      t, config.language, state.updatedAt, state.connection, config.timeZone
    );
    statusLine.setAttribute("data-connection", state.connection);
  }

  function showFailed() {
    statusLine.textContent = t.load_failed;
    statusLine.classList.add("failed");
  }

  // What changed, said briefly over the map (and to screen readers).
  function showChanges(changes) {
    if (!changes || !changesBox) return;
    var lines = [];
    (changes.trails || []).concat(changes.points || []).forEach(function (change) {
      lines.push(
        change.status
          ? format(t.change_line, { name: change.name, status: statusLabel(change.status) })
          : format(t.change_gone, { name: change.name })
      );
    });
    if (!lines.length) return;
    changesBox.replaceChildren();
    lines.slice(0, CHANGES_SHOWN).forEach(function (line) {
      changesBox.appendChild(el("p", "change", line));
    });
    if (lines.length > CHANGES_SHOWN) {
      var more = lines.length - CHANGES_SHOWN;
      changesBox.appendChild(el("p", "change more", format(plural(t.more_changes, more), { n: more })));
    }
    changesBox.hidden = false;
    window.clearTimeout(changesTimer);
    changesTimer = window.setTimeout(function () {
      changesBox.hidden = true;
    }, CHANGES_SECONDS * 1000);
  }

  function fetchJson(url, options) {
    return fetch(url, options).then(function (response) {
      if (!response.ok) throw new Error(url + " answered " + response.status);
      return response.json();
    });
  }

  // The system document changes under its address: never from a cache.
  var SYSTEM_FETCH = { cache: "no-store", credentials: "omit" };
  // A map file never changes under its name; these options match the page's preload of it.
  var FILE_FETCH = { cache: "default", credentials: "same-origin" };

  function showSystem(system) {
    state.system = system;
    afterPaint(function () {
      renderNotices(system);
      renderSnow(system);
      renderWeather(system);
    });
  }

  // The system document and, when it is not the one shown, the file: both at once, the file
  // drawn as soon as it is here. Map files never change under a name, so the browser may
  // keep them.
  function load(fileUrl, publishedAt) {
    var number = ++loads;
    var file = fileUrl && fileUrl !== state.url ? fetchJson(fileUrl, FILE_FETCH) : null;
    var fileShown = file && file.then(function (collection) {
      if (number < shownLoad) return false;
      shownLoad = number;
      state.url = fileUrl;
      state.collection = collection;
      render();
      document.body.setAttribute("data-file", state.url);
      return true;
    });
    return Promise.all([fetchJson(config.systemUrl, SYSTEM_FETCH), fileShown]).then(function (answers) {
      if (number < shownLoad) return;
      shownLoad = number;
      var system = answers[0];
      showSystem(system);
      if (answers[1] || !state.updatedAt) {
        state.updatedAt = publishedAt ? new Date(publishedAt) : new Date();
      }
      statusLine.classList.remove("failed");
      showStatus();
      return system;
    });
  }

  // A poll: the system document names the current file; a new name means a new compile.
  function poll() {
    return fetchJson(config.systemUrl, SYSTEM_FETCH)
      .then(function (system) {
        if (system.geoJsonUrl && system.geoJsonUrl !== state.url) return load(system.geoJsonUrl, null);
        showSystem(system);
        statusLine.classList.remove("failed");
        showStatus();
      })
      .catch(showFailed);
  }

  function published(data) {
    if (data.fileUrl === state.url) return;
    loadConfirmations();
    load(data.fileUrl, data.compiledOn)
      .then(function () {
        showChanges(data.changes);
      })
      .catch(showFailed);
  }

  // Trails whose status nobody confirmed lately (the system's "unconfirmed after"): a route of
  // their own, read with each load and every few minutes, since a confirmation publishes nothing.
  var CONFIRMATIONS_MS = 5 * 60 * 1000;
  function loadConfirmations() {
    return fetchJson(config.confirmationsUrl, SYSTEM_FETCH)
      .then(function (answer) {
        var unconfirmed = {};
        answer.unconfirmed.forEach(function (trail) {
          unconfirmed[trail.trailId] = trail.confirmedOn;
        });
        var changed = JSON.stringify(unconfirmed) !== JSON.stringify(state.unconfirmed);
        state.unconfirmed = unconfirmed;
        if (changed && state.collection) render();
      })
      .catch(function () {});
  }
  window.setInterval(loadConfirmations, CONFIRMATIONS_MS);

  state.connection = "connecting";
  loadConfirmations();
  load(config.fileUrl, config.compiledOn).catch(showFailed).then(function () {
    window.trailLive({
      eventsUrl: config.eventsUrl,
      pollSeconds: config.pollSeconds,
      onPublished: published,
      poll: poll,
      events: streamEvents,
      onState: function (connection) {
        state.connection = connection;
        showStatus();
        document.dispatchEvent(new CustomEvent("trailmap:connection", { detail: connection }));
      },
      onLive: function () {
        document.dispatchEvent(new CustomEvent("trailmap:live"));
      },
    });
  });

  // The legend folds away on a phone; a wider screen has room to show it.
  var legend = document.getElementById("legend");
  if (legend && window.matchMedia("(min-width: 761px)").matches) legend.open = true;

  // Escape closes a popup opened from the list, where the map itself does not have focus.
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape") map.closePopup();
  });

  var filter = document.getElementById("activity-filter");
  if (filter) {
    filter.addEventListener("change", function () {
      state.activity = filter.value;
      if (state.collection) render();
    });
  }
})();
