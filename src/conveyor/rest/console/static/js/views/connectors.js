// The connectors of the cluster: health, tasks, where they run, records/s, lag and dead letters, sortable
// and filtered; a connector with a failed or restarting task never shows as healthy.

import { lineChart } from "../chart.js";
import { connectorHref, h, put, stateBadge } from "../dom.js";
import { deadLettered, recordErrors, recordsLagging } from "../history.js";

const TROUBLE = ["FAILED", "RESTARTING"];

function taskSummary(tasks) {
  if (!tasks.length) return h("span", { class: "muted" }, "no tasks");
  return tasks.map((task) => h("span", { class: "task-chip", title: `task ${task.id} on ${task.worker_id}` }, stateBadge(task.state)));
}

/** The state the list shows: FAILED or RESTARTING when the connector or any of its tasks is, else its own. */
export function health(status) {
  const states = [status.connector.state, ...status.tasks.map((task) => task.state)];
  return TROUBLE.find((state) => states.includes(state)) ?? status.connector.state;
}

function formatRate(value) {
  return value === null ? "–" : value >= 10 ? Math.round(value).toString() : value.toFixed(1);
}

function restartNote(status, restarts) {
  const troubled = status.tasks.filter((task) => TROUBLE.includes(task.state));
  if (status.connector.state === "FAILED") troubled.unshift({ id: "connector" });
  if (!troubled.length) return null;
  const seen = new Map(restarts.map((entry) => [entry.task, entry]));
  return h("div", { class: "restarts" }, troubled.map((task) => {
    const entry = seen.get(task.id);
    const label = task.id === "connector" ? "connector" : `task ${task.id}`;
    const failures = entry ? `, ${entry.failures} failure${entry.failures === 1 ? "" : "s"}` : "";
    const next = entry?.next_restart_ms ? `, next try ${new Date(entry.next_restart_ms).toLocaleTimeString()}` : "";
    const state = task.id === "connector" ? "FAILED" : task.state;
    return h("div", { class: "restart-note", "data-task": task.id }, `${label} ${state}${failures}${next}`);
  }));
}

const COLUMNS = [
  { label: "Name", key: (row) => row.name },
  { label: "Type", key: (row) => row.status.type },
  { label: "State", key: (row) => `${TROUBLE.includes(row.health) ? 0 : 1}${row.health}` },
  { label: "Tasks", key: (row) => row.status.tasks.length },
  { label: "Workers", key: (row) => row.workers.join(", ") },
  { label: "Records/s", key: (row) => row.rate ?? -1 },
  { label: "Lag", key: (row) => row.lag ?? -1 },
  { label: "Record errors", key: (row) => recordErrors(row.status) },
  { label: "Dead letters", key: (row) => deadLettered(row.status) },
];

export function connectorsView() {
  let sortBy = "State";
  let descending = false;
  let filter = "";
  let latest = null;

  const filterBox = h("input", {
    type: "search", id: "connector-filter", placeholder: "Filter by name, type, state, class or worker",
    oninput: () => {
      filter = filterBox.value.trim().toLowerCase();
      if (latest) render(...latest);
    },
  });
  const summary = h("p", { id: "connectors-summary" });
  const charts = h("section", { class: "charts" });
  const heading = h("h2", {}, "Connectors");
  const list = h("section");

  function sortOn(label) {
    descending = sortBy === label ? !descending : false;
    sortBy = label;
    if (latest) render(...latest);
  }

  function render(root, { connectors, history }) {
    const all = Object.entries(connectors).map(([name, { status, info }]) => ({
      name, status, info,
      health: health(status),
      workers: [...new Set([status.connector.worker_id, ...status.tasks.map((t) => t.worker_id)])],
      rate: history.latestRate(name),
      lag: recordsLagging(status) ?? (status.type === "sink" ? history.latestLag(name) : null),
    }));
    const failing = all.filter((row) => TROUBLE.includes(row.health));
    const matches = (row) => !filter || [row.name, row.status.type, row.health, row.info?.config?.["connector.class"] ?? "", ...row.workers]
      .some((text) => String(text).toLowerCase().includes(filter));
    const column = COLUMNS.find((c) => c.label === sortBy);
    const rows = all.filter(matches).sort((a, b) => {
      const [x, y] = [column.key(a), column.key(b)];
      const order = x < y ? -1 : x > y ? 1 : a.name < b.name ? -1 : 1;
      return descending ? -order : order;
    });
    put(summary,
      failing.length
        ? h("span", { class: "failing-summary" }, `${failing.length} of ${all.length} connectors failing: `, failing.map((row) => row.name).join(", "))
        : h("span", { class: "ok" }, `${all.length} connectors, none failing`));
    summary.className = failing.length ? "summary failing" : "summary";
    put(charts,
      lineChart({ title: "Records/s, all connectors", label: "cluster-rate", unit: "rec/s", points: history.rate() }),
      lineChart({ title: "Lag, all sinks", label: "cluster-lag", unit: "records", points: history.lag() }));
    heading.textContent = `Connectors (${all.length})`;
    filterBox.hidden = !all.length;
    put(list,
      all.length
        ? h("table", { id: "connectors" },
            h("thead", {}, h("tr", {}, COLUMNS.map(({ label }) => h("th", {},
              h("button", { type: "button", class: "sort", "data-sort": label, onclick: () => sortOn(label),
                "aria-sort": label === sortBy ? (descending ? "descending" : "ascending") : null },
                label, label === sortBy ? (descending ? " ▼" : " ▲") : ""))))),
            h("tbody", {}, rows.map((row) => h(
              "tr",
              { "data-connector": row.name, class: TROUBLE.includes(row.health) ? "failing" : null },
              h("td", {}, h("a", { href: connectorHref(row.name) }, row.name), restartNote(row.status, history.restartsOf(row.name))),
              h("td", {}, row.status.type),
              h("td", { class: "connector-state" }, stateBadge(row.health)),
              h("td", {}, taskSummary(row.status.tasks)),
              h("td", {}, row.workers.join(", ")),
              h("td", { class: "num rate" }, formatRate(row.rate)),
              h("td", { class: "num lag" }, row.lag === null ? "–" : row.lag),
              h("td", { class: "num" }, recordErrors(row.status)),
              h("td", { class: "num dlq-count" }, deadLettered(row.status))))))
        : h("p", { class: "muted" }, "No connectors yet. ", h("a", { href: "#/new" }, "Create one.")));
  }

  return {
    title: "Connectors",
    mount(root) {
      put(root, summary, charts, heading, filterBox, list);
    },
    update(root, state) {
      latest = [root, state];
      render(root, state);
    },
  };
}
