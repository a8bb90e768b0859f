// Records/s and lag over the last hour, as the worker samples them (`GET /conveyor/history`), so a page
// opened now shows the past; and the counters of the task metrics each status reports.

export const WINDOW_MS = 60 * 60 * 1000;

function sum(tasks, metric) {
  return tasks.reduce((total, task) => total + (Number(task.metrics?.[metric]) || 0), 0);
}

// A task's counter under the name its loop reports (a Spark sink counts rows), or Kafka Connect's.
const MOVED = {
  source: ["records-written", "source-record-write-total"],
  sink: ["records-put", "rows-read", "sink-record-send-total"],
};

function hasMetric(tasks, metric) {
  return tasks.some((task) => task.metrics && metric in task.metrics);
}

/** The counter of records moved that `tasks` of a connector of `type` report. */
function movedMetric(type, tasks) {
  const names = MOVED[type] ?? MOVED.source;
  return names.find((name) => hasMetric(tasks, name)) ?? names[0];
}

/** Records one task of a connector of `type` has moved so far. */
export function taskRecordsMoved(type, task) {
  return sum([task], movedMetric(type, [task]));
}

// A sink task's records past its position, under the name its loop reports (a Spark sink's query: "lag").
const LAG = ["records-lag", "lag"];

/** A sink's records past its tasks' positions as its status reports them now; null for a source, or
 *  while no task reports it. */
export function recordsLagging(status) {
  if (status.type !== "sink") return null;
  const metric = LAG.find((name) => hasMetric(status.tasks, name));
  return metric === undefined ? null : sum(status.tasks, metric);
}

/** Records the connector's tasks sent to its dead letter queue. */
export function deadLettered(status) {
  return sum(status.tasks, "deadletterqueue-produce-requests");
}

/** Records that failed in a converter, transform or the task, whether tolerated or not. */
export function recordErrors(status) {
  return sum(status.tasks, "total-record-errors");
}

/** The worker's samples, as per-connector series of {t, value} and their sums under the key "" (lag: sinks'). */
export class History {
  constructor(windowMs = WINDOW_MS) {
    this.windowMs = windowMs;
    this.rates = new Map();
    this.lags = new Map();
    this.restarts = {};
    this.latest = 0;
  }

  /** Appends the samples of one `GET /conveyor/history?since=` answer and keeps its restarts. */
  merge(body) {
    for (const sample of body.samples) {
      if (sample.t <= this.latest) continue;
      this.latest = sample.t;
      let clusterRate = 0;
      let clusterLag = 0;
      for (const [name, point] of Object.entries(sample.connectors)) {
        this.#push(this.rates, name, sample.t, point.rate);
        if (point.lag !== null) this.#push(this.lags, name, sample.t, point.lag);
        clusterRate += point.rate;
        clusterLag += point.lag ?? 0;
      }
      this.#push(this.rates, "", sample.t, clusterRate);
      this.#push(this.lags, "", sample.t, clusterLag);
    }
    this.restarts = body.restarts;
  }

  rate(name = "") {
    return this.rates.get(name) ?? [];
  }

  lag(name = "") {
    return this.lags.get(name) ?? [];
  }

  /** The latest value of a connector's series, or null before its first sample. */
  latestRate(name) {
    return this.rate(name).at(-1)?.value ?? null;
  }

  latestLag(name) {
    return this.lag(name).at(-1)?.value ?? null;
  }

  /** [{task, failures, next_restart_ms}] of a connector's tasks that failed since the worker started. */
  restartsOf(name) {
    return this.restarts[name] ?? [];
  }

  #push(series, name, t, value) {
    const points = series.get(name) ?? [];
    points.push({ t, value });
    while (points.length && points[0].t < t - this.windowMs) points.shift();
    series.set(name, points);
  }
}
