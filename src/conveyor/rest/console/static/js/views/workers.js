// The cluster's workers, as the connectors' and tasks' statuses name them.

import { connectorHref, h, put, stateBadge } from "../dom.js";

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

export function workersView() {
  return {
    title: "Workers",
    update(root, { connectors, server }) {
      const workers = workersOf(connectors);
      const ids = [...workers.keys()].sort();
      const cards = ids.map((id) => {
        const { connectors: names, tasks } = workers.get(id);
        return h("article", { class: "card worker", "data-worker": id },
          h("h3", {}, id),
          h("p", {}, `${names.length} connector${names.length === 1 ? "" : "s"}, ${tasks.length} task${tasks.length === 1 ? "" : "s"}`),
          h("ul", { class: "worker-tasks" },
            tasks.map((task) => h("li", {}, h("a", { href: connectorHref(task.connector) }, `${task.connector}-${task.id}`), " ", stateBadge(task.state)))));
      });
      put(root,
        h("h2", {}, `Workers (${ids.length})`),
        h("p", { class: "muted" },
          "Workers are those running a connector or a task. This page is served by a worker of Kafka cluster ",
          h("code", {}, server?.kafka_cluster_id ?? "?"), ", Conveyor ", server?.version ?? "?", "."),
        ids.length ? h("div", { class: "cards" }, cards) : h("p", { class: "muted" }, "No worker runs a connector yet."),
      );
    },
  };
}
