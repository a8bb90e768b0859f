// The public REST API, called relative to the console's own address so a proxy prefix still works.

const ROOT = new URL("../", document.baseURI);

/** A REST call that failed: its HTTP status and Kafka Connect's error message. */
export class RestError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function call(method, path, body) {
  const init = { method, headers: { Accept: "application/json" } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(new URL(path, ROOT), init);
  const text = await response.text();
  let parsed = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  if (!response.ok) {
    const message = parsed && typeof parsed === "object" ? parsed.message : parsed;
    throw new RestError(response.status, message || `${response.status} ${response.statusText}`);
  }
  return parsed;
}

const seg = encodeURIComponent;
const connector = (name) => `connectors/${seg(name)}`;

export const api = {
  serverInfo: () => call("GET", ""),
  connectors: () => call("GET", "connectors?expand=status&expand=info"),
  pause: (name) => call("PUT", `${connector(name)}/pause`),
  resume: (name) => call("PUT", `${connector(name)}/resume`),
  stop: (name) => call("PUT", `${connector(name)}/stop`),
  restart: (name) => call("POST", `${connector(name)}/restart`),
  restartFailedTasks: (name) => call("POST", `${connector(name)}/restart?includeTasks=true&onlyFailed=true`),
  restartTask: (name, task) => call("POST", `${connector(name)}/tasks/${task}/restart`),
  remove: (name) => call("DELETE", connector(name)),
  create: (name, config) => call("POST", "connectors", { name, config }),
  offsets: (name) => call("GET", `${connector(name)}/offsets`),
  resetOffsets: (name) => call("DELETE", `${connector(name)}/offsets`),
  alterOffsets: (name, body) => call("PATCH", `${connector(name)}/offsets`, body),
  plugins: () => call("GET", "connector-plugins"),
  pluginConfig: (plugin) => call("GET", `connector-plugins/${seg(plugin)}/config`),
  history: (since) => call("GET", `conveyor/history?since=${since}`),
  workers: () => call("GET", "conveyor/workers"),
  topics: () => call("GET", "conveyor/topics"),
  topic: (topic) => call("GET", `conveyor/topics/${seg(topic)}`),
  records: (topic, partition, limit) => call("GET", `conveyor/topics/${seg(topic)}/partitions/${partition}/records?limit=${limit}`),
  validate: (plugin, config) => call("PUT", `connector-plugins/${seg(plugin)}/config/validate`, config),
};
