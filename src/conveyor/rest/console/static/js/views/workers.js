// The group's workers: each one's memory, CPU, Spark slots and Spark UI (`GET /conveyor/workers`), with
// the connectors and tasks the statuses place on it.

import { api } from "../api.js";
import { connectorHref, h, put, stateBadge } from "../dom.js";

const MIB = 1024 * 1024;

/** Worker id -> {connectors: [name], tasks: [{connector, id, state}]}, from every status. */
export function workersOf(connectors) {
  const workers = new Map();
  const entry = (id) => {
    if (!workers.has(id)) workers.set(id, { connectors: [], tasks: [] });
    return workers.get(id);
  };
  for (const [name, { status }] of Object.entries(connectors)) {
    if (status.connector.worker_id) entry(status.connector.worker_id).connectors.push(name);
    for (const task of status.tasks) {
      if (task.worker_id) entry(task.worker_id).tasks.push({ connector: name, id: task.id, state: task.state });
    }
  }
  return workers;
}

function usageLines(usage) {
  if (!usage) return [h("p", { class: "muted worker-usage" }, "Usage not reported yet.")];
  if (usage.error) return [h("p", { class: "error worker-usage" }, `Not answering: ${usage.error}`)];
  const slots = usage.slots;
  return [
    h("dl", { class: "worker-usage" },
      h("dt", {}, "Memory"), h("dd", { class: "worker-memory" }, usage.memory_bytes === null ? "?" : `${Math.round(usage.memory_bytes / MIB)} MiB`),
      h("dt", {}, "CPU"), h("dd", { class: "worker-cpu" }, usage.cpu_percent === null ? "?" : `${usage.cpu_percent.toFixed(0)}% of a core`),
      h("dt", {}, "Spark slots"), h("dd", { class: "worker-slots" },
        slots ? `${slots.in_use} of ${slots.total} in use${slots.waiting_tasks ? `, ${slots.waiting_tasks} tasks waiting` : ""}` : "?"),
      h("dt", {}, "Processes"), h("dd", {}, String(usage.processes))),
    usage.spark_ui_url
      ? h("p", {}, h("a", { class: "spark-ui", href: usage.spark_ui_url, target: "_blank", rel: "noopener" }, "Spark UI"))
      : h("p", { class: "muted" }, "Spark UI off (spark.ui.enabled=false)"),
  ];
}

function render(root, { connectors, server }, usages) {
  const placed = workersOf(connectors);
  const byId = new Map((Array.isArray(usages) ? usages : []).map((usage) => [usage.worker_id, usage]));
  const ids = [...new Set([...byId.keys(), ...placed.keys()])].sort();
  const cards = ids.map((id) => {
    const { connectors: names, tasks } = placed.get(id) ?? { connectors: [], tasks: [] };
    return h("article", { class: "card worker", "data-worker": id },
      h("h3", {}, id),
      ...usageLines(byId.get(id)),
      h("p", {}, `${names.length} connector${names.length === 1 ? "" : "s"}, ${tasks.length} task${tasks.length === 1 ? "" : "s"}`),
      h("ul", { class: "worker-tasks" },
        tasks.map((task) => h("li", {}, h("a", { href: connectorHref(task.connector) }, `${task.connector}-${task.id}`), " ", stateBadge(task.state)))));
  });
  put(root,
    h("h2", {}, `Workers (${ids.length})`),
    h("p", { class: "muted" },
      "Every worker of the group, as its members report themselves. This page is served by a worker of Kafka cluster ",
      h("code", {}, server?.kafka_cluster_id ?? "?"), ", Conveyor ", server?.version ?? "?", "."),
    usages && usages.error ? h("p", { class: "error" }, `No usage of the workers: ${usages.error}`) : null,
    ids.length ? h("div", { class: "cards" }, cards) : h("p", { class: "muted" }, "No worker reported yet."),
  );
}

export function workersView() {
  let usages = null;
  return {
    title: "Workers",
    update(root, state) {
      render(root, state, usages);
      api.workers()
        .then((answer) => { usages = answer; })
        .catch((error) => { usages = { error: error.message }; })
        .then(() => { if (window.location.hash.startsWith("#/workers")) render(root, state, usages); });
    },
  };
}
