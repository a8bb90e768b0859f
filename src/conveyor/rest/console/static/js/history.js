// Records/s and lag over the last minutes, worked out in the browser from the task metrics that
// `GET /connectors?expand=status` reports at each poll. History starts when the page opens.

export const WINDOW_MS = 5 * 60 * 1000;

function sum(tasks, metric) {
  return tasks.reduce((total, task) => total + (Number(task.metrics?.[metric]) || 0), 0);
}

// A task's counter under the name its loop reports (a Spark sink counts rows), or Kafka Connect's.
const MOVED = {
  source: ["records-written", "source-record-write-total"],
  sink: ["records-put", "rows-read", "sink-record-send-total"],
};
const LAGS = ["records-lag", "lag"];

function hasMetric(tasks, metric) {
  return tasks.some((task) => task.metrics && metric in task.metrics);
}

/** The counter of records moved that `tasks` of a connector of `type` report. */
function movedMetric(type, tasks) {
  const names = MOVED[type] ?? MOVED.source;
  return names.find((name) => hasMetric(tasks, name)) ?? names[0];
}

/** Records a connector has moved so far: written to the log by a source, put into the sink by a sink. */
export function recordsMoved(status) {
  return sum(status.tasks, movedMetric(status.type, status.tasks));
}

/** Records one task of a connector of `type` has moved so far. */
export function taskRecordsMoved(type, task) {
  return sum([task], movedMetric(type, [task]));
}

/**
 * Records waiting to be read: a sink's tasks' `records-lag` (a Spark sink's `lag`), the records in their
 * partitions past their positions. A source reads an external system and has no lag: null.
 */
export function recordsLagging(status) {
  if (status.type !== "sink") return null;
  return sum(status.tasks, LAGS.find((name) => hasMetric(status.tasks, name)) ?? LAGS[0]);
}

/** Records the connector's tasks sent to its dead letter queue. */
export function deadLettered(status) {
  return sum(status.tasks, "deadletterqueue-produce-requests");
}

/** Records that failed in a converter, transform or the task, whether tolerated or not. */
export function recordErrors(status) {
  return sum(status.tasks, "total-record-errors");
}

/** Per-connector series of {t, value} points, and their sum over the cluster under the key "" (lag: sinks'). */
export class History {
  constructor(windowMs = WINDOW_MS) {
    this.windowMs = windowMs;
    this.last = new Map();
    this.rates = new Map();
    this.lags = new Map();
    this.previousPoll = undefined;
  }

  /** Takes one poll's statuses, keyed by connector name, taken at time `t` (ms). */
  record(t, statuses) {
    let clusterRate = 0;
    let clusterLag = 0;
    for (const [name, status] of Object.entries(statuses)) {
      const moved = recordsMoved(status);
      const before = this.last.get(name);
      // A restarted task starts its counters again: a drop is no negative rate.
      const rate = before && t > before.t ? Math.max(0, moved - before.moved) / ((t - before.t) / 1000) : 0;
      this.last.set(name, { t, moved });
      const lag = recordsLagging(status);
      if (before) this.#push(this.rates, name, t, rate);
      if (lag !== null) this.#push(this.lags, name, t, lag);
      clusterRate += rate;
      clusterLag += lag ?? 0;
    }
    for (const name of [...this.last.keys()]) {
      if (!(name in statuses)) {
        this.last.delete(name);
        this.rates.delete(name);
        this.lags.delete(name);
      }
    }
    if (this.previousPoll !== undefined) this.#push(this.rates, "", t, clusterRate);
    this.previousPoll = t;
    this.#push(this.lags, "", t, clusterLag);
  }

  rate(name = "") {
    return this.rates.get(name) ?? [];
  }

  lag(name = "") {
    return this.lags.get(name) ?? [];
  }

  #push(series, name, t, value) {
    const points = series.get(name) ?? [];
    points.push({ t, value });
    while (points.length && points[0].t < t - this.windowMs) points.shift();
    series.set(name, points);
  }
}
