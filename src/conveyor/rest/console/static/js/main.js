// The console: a hash router over its views, refreshed from the REST API every few seconds.

import { api } from "./api.js";
import { History } from "./history.js";
import { connectorView } from "./views/connector.js";
import { connectorsView } from "./views/connectors.js";
import { createView } from "./views/create.js";
import { topicsView } from "./views/topics.js";
import { workersView } from "./views/workers.js";

const POLL_MS = 2000;
const root = document.getElementById("view");
const problem = document.getElementById("problem");
const state = { connectors: {}, server: null, history: new History(), loaded: false };
let view = null;

function notify(message, isError = false) {
  let line = document.getElementById("notice");
  if (!line) {
    line = document.createElement("p");
    line.id = "notice";
    line.setAttribute("role", "status");
    root.before(line);
  }
  line.textContent = message;
  line.className = isError ? "notice error" : "notice";
}

function viewFor(hash) {
  const [, page, name, partition] = hash.replace(/^#\/?/, "/").split("/");
  const context = { refresh, notify };
  if (page === "connectors" && name) return connectorView(decodeURIComponent(name), context);
  if (page === "workers") return workersView();
  if (page === "new") return createView(context);
  if (page === "topics") return topicsView(name === undefined ? null : decodeURIComponent(name), partition ?? null);
  return connectorsView();
}

function route() {
  view = viewFor(window.location.hash);
  const page = window.location.hash.split("/")[1] || "connectors";
  for (const link of document.querySelectorAll("nav a")) link.classList.toggle("active", link.dataset.view === page);
  document.title = `${view.title} · Conveyor`;
  const mounted = view.mount ? view.mount(root) : null;
  if (view.polls !== false && state.loaded) view.update(root, state);
  return mounted;
}

async function refresh() {
  try {
    const [connectors, history] = await Promise.all([api.connectors(), api.history(state.history.latest)]);
    state.connectors = connectors;
    state.history.merge(history);
    state.loaded = true;
    problem.hidden = true;
  } catch (error) {
    problem.textContent = `The worker did not answer: ${error.message}`;
    problem.hidden = false;
    return;
  }
  if (view && view.polls !== false) view.update(root, state);
  document.body.dataset.refreshed = String(Date.now());
}

async function start() {
  window.addEventListener("hashchange", route);
  try {
    state.server = await api.serverInfo();
    document.getElementById("server").textContent = `Conveyor ${state.server.version} · cluster ${state.server.kafka_cluster_id}`;
  } catch (error) {
    problem.textContent = `The worker did not answer: ${error.message}`;
    problem.hidden = false;
  }
  route();
  await refresh();
  setInterval(refresh, POLL_MS);
}

start();
