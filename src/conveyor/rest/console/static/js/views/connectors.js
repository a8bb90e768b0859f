// The connectors of the cluster: state, tasks, where they run, throughput and dead letters.

import { lineChart } from "../chart.js";
import { connectorHref, h, put, stateBadge } from "../dom.js";
import { deadLettered, recordErrors } from "../history.js";

function taskSummary(tasks) {
  if (!tasks.length) return h("span", { class: "muted" }, "no tasks");
  return tasks.map((task) => h("span", { class: "task-chip", title: `task ${task.id} on ${task.worker_id}` }, stateBadge(task.state)));
}

export function connectorsView() {
  return {
    title: "Connectors",
    update(root, { connectors, history }) {
      const names = Object.keys(connectors).sort();
      const rows = names.map((name) => {
        const { status } = connectors[name];
        const workers = [...new Set([status.connector.worker_id, ...status.tasks.map((t) => t.worker_id)])];
        return h(
          "tr",
          { "data-connector": name },
          h("td", {}, h("a", { href: connectorHref(name) }, name)),
          h("td", {}, status.type),
          h("td", { class: "connector-state" }, stateBadge(status.connector.state)),
          h("td", {}, taskSummary(status.tasks)),
          h("td", {}, workers.join(", ")),
          h("td", { class: "num" }, recordErrors(status)),
          h("td", { class: "num dlq-count" }, deadLettered(status)),
        );
      });
      put(root,
        h("section", { class: "charts" },
          lineChart({ title: "Records/s, all connectors", label: "cluster-rate", unit: "rec/s", points: history.rate() }),
          lineChart({ title: "Lag, all sinks", label: "cluster-lag", unit: "records", points: history.lag() })),
        h("section", {},
          h("h2", {}, `Connectors (${names.length})`),
          names.length
            ? h("table", { id: "connectors" },
                h("thead", {}, h("tr", {}, ["Name", "Type", "State", "Tasks", "Workers", "Record errors", "Dead letters"].map((c) => h("th", {}, c)))),
                h("tbody", {}, rows))
            : h("p", { class: "muted" }, "No connectors yet. ", h("a", { href: "#/new" }, "Create one."))),
      );
    },
  };
}
