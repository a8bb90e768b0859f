// Building DOM nodes: text always goes in as text, so names and traces are never read as HTML.

const SVG_NS = "http://www.w3.org/2000/svg";

function fill(el, attrs, children) {
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/** An HTML element: h("td", {class: "state"}, "RUNNING"). */
export function h(tag, attrs = {}, ...children) {
  return fill(document.createElement(tag), attrs, children);
}

/** An SVG element, for the charts. */
export function s(tag, attrs = {}, ...children) {
  return fill(document.createElementNS(SVG_NS, tag), attrs, children);
}

/** Replace `el`'s children, skipping absent ones (null, undefined, false) as `h` does. */
export function put(el, ...children) {
  el.replaceChildren();
  return fill(el, {}, children);
}

/** A state as a coloured badge: RUNNING, PAUSED, STOPPED, FAILED, UNASSIGNED, RESTARTING. */
export function stateBadge(state) {
  return h("span", { class: `badge state-${String(state).toLowerCase()}` }, state);
}

/** The hash link of one connector's page. */
export function connectorHref(name) {
  return `#/connectors/${encodeURIComponent(name)}`;
}
