// One connector: its state and tasks, the buttons that change them, its charts, dead letters,
// config and offsets.

import { api } from "../api.js";
import { lineChart } from "../chart.js";
import { h, put, stateBadge } from "../dom.js";
import { deadLettered, recordErrors, recordsLagging, taskRecordsMoved } from "../history.js";

const DLQ_TOPIC = "errors.deadletterqueue.topic.name";

// Frames of Conveyor's runtime, Spark and Python itself: the user's frame is the last one outside them.
const FRAMEWORK = /\/(pyspark|py4j|lib\/python3[^/]*|conveyor\/(runtime|spark|herder|log|storage|api|convert|data|rest))\//;
const FRAME = /^\s*File "([^"]+)", line (\d+), in (.+)$/;

/** The last frame outside the framework (else the last frame) and the exception's last line. */
export function traceSummary(text) {
  const lines = text.split("\n");
  const frames = lines.map((line, i) => ({ match: FRAME.exec(line), code: (lines[i + 1] ?? "").trim() })).filter((f) => f.match);
  const user = frames.filter((f) => !FRAMEWORK.test(f.match[1])).at(-1) ?? frames.at(-1) ?? null;
  const message = lines.map((line) => line.trimEnd()).filter((line) => line && !/^\s/.test(line) && !/^Traceback /.test(line)
    && !/^(The above exception|During handling of the above exception)/.test(line)).at(-1) ?? lines[0];
  return {
    message,
    frame: user ? `${user.match[1]}, line ${user.match[2]}, in ${user.match[3]}` : null,
    code: user?.code ?? "",
  };
}

function trace(text) {
  if (!text) return null;
  const { message, frame, code } = traceSummary(text);
  return h("div", { class: "trace" },
    h("p", { class: "trace-message" }, message),
    frame ? h("p", { class: "trace-frame" }, h("code", {}, frame), code ? h("code", { class: "trace-code" }, code) : null) : null,
    h("details", { class: "trace-full" }, h("summary", {}, "Full traceback"), h("pre", {}, text)));
}

/** A task's counter, or "unknown" (with why on hover) when its worker did not answer for it. */
function counted(task, value) {
  if (task.metrics_unavailable) return h("span", { class: "muted unknown", title: task.metrics_unavailable }, "unknown");
  return value;
}

function metric(task, name) {
  return counted(task, task.metrics?.[name] ?? 0);
}

export function connectorView(name, { refresh, notify }) {
  let offsetsState = null;
  let shownState = null;

  async function act(label, action) {
    try {
      const result = await action();
      notify(result?.message ?? `${label}: done`);
    } catch (error) {
      notify(`${label} failed: ${error.message}`, true);
    }
    await refresh();
  }

  // Each button with whether it applies to the connector's state.
  const idle = (state) => state === "PAUSED" || state === "STOPPED";
  const actions = [
    ["Pause", "pause", () => api.pause(name), (state) => !idle(state)],
    ["Resume", "resume", () => api.resume(name), idle],
    ["Restart", "restart", () => api.restart(name), () => true],
    ["Restart failed tasks", "restart-failed", () => api.restartFailedTasks(name), () => true],
    ["Stop", "stop", () => api.stop(name), (state) => state !== "STOPPED"],
  ];

  const header = h("div");
  const tasks = h("section");
  const charts = h("section", { class: "charts" });
  const dlq = h("section");
  const config = h("section");
  const offsets = h("section", { id: "offsets" });
  const toolbar = h("div", { class: "toolbar" },
    actions.map(([label, id, call]) => h("button", { type: "button", "data-action": id, onclick: () => act(label, call) }, label)),
    h("button", {
      type: "button", class: "danger", "data-action": "delete",
      onclick: async () => {
        if (!window.confirm(`Delete connector ${name}? Its config and tasks are removed.`)) return;
        try {
          await api.remove(name);
          notify(`Deleted ${name}`);
          window.location.hash = "#/connectors";
        } catch (error) {
          notify(`Delete failed: ${error.message}`, true);
        }
        await refresh();
      },
    }, "Delete"));

  async function loadOffsets(stopped) {
    try {
      offsetsState = { stopped, offsets: (await api.offsets(name)).offsets, error: null };
    } catch (error) {
      offsetsState = { stopped, offsets: [], error: error.message };
    }
    renderOffsets();
  }

  function renderOffsets() {
    const { stopped, offsets: entries, error } = offsetsState;
    const editor = h("textarea", { id: "offsets-editor", rows: 6, spellcheck: "false", disabled: !stopped },
      JSON.stringify({ offsets: entries }, null, 2));
    put(offsets,
      h("h3", {}, "Offsets"),
      error ? h("p", { class: "error" }, error) : null,
      entries.length
        ? h("table", { id: "offsets-table" },
            h("thead", {}, h("tr", {}, h("th", {}, "Partition"), h("th", {}, "Offset"))),
            h("tbody", {}, entries.map((entry) => h("tr", {},
              h("td", {}, h("code", {}, JSON.stringify(entry.partition))),
              h("td", {}, h("code", {}, JSON.stringify(entry.offset)))))))
        : h("p", { class: "muted", id: "no-offsets" }, "No committed offsets."),
      stopped ? null : h("p", { class: "muted" }, "Stop the connector to reset or alter its offsets."),
      h("div", { class: "toolbar" },
        h("button", { type: "button", "data-action": "reload-offsets", onclick: () => loadOffsets(stopped) }, "Reload"),
        h("button", { type: "button", "data-action": "reset-offsets", disabled: !stopped,
          onclick: () => act("Reset offsets", () => api.resetOffsets(name)).then(() => loadOffsets(stopped)) }, "Reset offsets")),
      h("label", { for: "offsets-editor" }, "Offsets to write (a null offset resets its partition):"),
      editor,
      h("div", { class: "toolbar" },
        h("button", { type: "button", "data-action": "alter-offsets", disabled: !stopped,
          onclick: () => {
            let body;
            try {
              body = JSON.parse(editor.value);
            } catch (error) {
              notify(`Alter offsets failed: not JSON (${error.message})`, true);
              return;
            }
            act("Alter offsets", () => api.alterOffsets(name, body)).then(() => loadOffsets(stopped));
          } }, "Alter offsets")),
    );
  }

  return {
    title: name,
    mount(root) {
      put(root, header, toolbar, tasks, charts, dlq, config, offsets);
    },
    update(root, { connectors, history }) {
      const entry = connectors[name];
      if (!entry) {
        put(header, h("h2", {}, name), h("p", { class: "muted", id: "gone" }, "This connector does not exist (any more)."));
        for (const section of [tasks, charts, dlq, config, offsets]) put(section);
        toolbar.hidden = true;
        return;
      }
      toolbar.hidden = false;
      const { status, info } = entry;
      for (const [, id, , applies] of actions) {
        toolbar.querySelector(`[data-action="${id}"]`).disabled = !applies(status.connector.state);
      }
      const stopped = status.connector.state === "STOPPED";
      put(header,
        h("h2", {}, name, " ", h("span", { id: "connector-state" }, stateBadge(status.connector.state))),
        h("p", {}, `${status.type} connector `, h("code", {}, info.config["connector.class"] ?? ""),
          ` on worker `, h("code", { id: "connector-worker" }, status.connector.worker_id)),
        trace(status.connector.trace),
      );
      put(tasks,
        h("h3", {}, `Tasks (${status.tasks.length})`),
        h("table", { id: "tasks" },
          h("thead", {}, h("tr", {}, ["Task", "State", "Worker", "Records", "Record errors", "Dead letters", ""].map((c) => h("th", {}, c)))),
          h("tbody", {}, status.tasks.map((task) => [
            h("tr", { "data-task": task.id },
              h("td", {}, task.id),
              h("td", { class: "task-state" }, stateBadge(task.state)),
              h("td", { class: "task-worker" }, task.worker_id),
              h("td", { class: "num" }, counted(task, taskRecordsMoved(status.type, task))),
              h("td", { class: "num" }, metric(task, "total-record-errors")),
              h("td", { class: "num" }, metric(task, "deadletterqueue-produce-requests")),
              h("td", {}, h("button", { type: "button", "data-action": "restart-task",
                onclick: () => act(`Restart task ${task.id}`, () => api.restartTask(name, task.id)) }, "Restart task"))),
            task.trace ? h("tr", { class: "trace-row", "data-trace": task.id }, h("td", { colspan: 7 }, trace(task.trace))) : null,
          ]))),
      );
      put(charts,
        lineChart({ title: "Records/s", label: "rate", unit: "rec/s", points: history.rate(name) }),
        status.type === "sink"
          ? lineChart({ title: "Lag", label: "lag", unit: "records", points: history.lag(name), current: recordsLagging(status) })
          : null,
      );
      const dlqTopic = info.config[DLQ_TOPIC];
      put(dlq,
        h("h3", {}, "Dead letter queue"),
        h("p", { id: "dlq" },
          dlqTopic
            ? [h("span", { class: "dlq-count" }, deadLettered(status)), " records sent to ", h("code", {}, dlqTopic)]
            : "No dead letter queue configured",
          `; ${recordErrors(status)} record errors (errors.tolerance=${info.config["errors.tolerance"] ?? "none"}).`),
      );
      put(config,
        h("details", {}, h("summary", {}, "Config"),
          h("table", { class: "config" }, h("tbody", {},
            Object.keys(info.config).sort().map((key) => h("tr", {}, h("th", {}, key), h("td", {}, h("code", {}, info.config[key]))))))),
      );
      // Offsets are read once, and again when the state changes (a stop enables their buttons).
      if (status.connector.state !== shownState) {
        shownState = status.connector.state;
        loadOffsets(stopped);
      }
    },
  };
}
