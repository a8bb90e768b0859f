// The topic browser: the log's topics, a topic's partitions and offsets, and a partition's last records
// decoded with the worker's converters (`GET /conveyor/topics...`). Loaded once per visit, not polled.

import { api } from "../api.js";
import { h, put } from "../dom.js";

const LAST_RECORDS = 20;
const topicHref = (topic) => `#/topics/${encodeURIComponent(topic)}`;

function decoded(field) {
  if (field.error) return h("span", { class: "error", title: field.error }, `undecodable (base64 ${field.base64})`);
  return field.text === null ? h("span", { class: "muted" }, "null") : h("code", {}, field.text);
}

async function listTopics(section) {
  const topics = await api.topics();
  put(section,
    h("h2", {}, `Topics (${topics.length})`),
    h("table", { id: "topics" },
      h("thead", {}, h("tr", {}, ["Topic", "Partitions", ""].map((c) => h("th", {}, c)))),
      h("tbody", {}, topics.map((topic) => h("tr", { "data-topic": topic.name },
        h("td", {}, h("a", { href: topicHref(topic.name) }, topic.name)),
        h("td", { class: "num" }, topic.partitions),
        h("td", { class: "muted" }, topic.internal ? "internal" : ""))))),
  );
}

async function showTopic(section, name, partition) {
  const topic = await api.topic(name);
  const chosen = partition === null ? null : Number(partition);
  put(section,
    h("p", {}, h("a", { href: "#/topics" }, "Topics"), " / "),
    h("h2", {}, name),
    h("table", { id: "partitions" },
      h("thead", {}, h("tr", {}, ["Partition", "Beginning offset", "End offset", "Records", ""].map((c) => h("th", {}, c)))),
      h("tbody", {}, topic.partitions.map((p) => h("tr", { "data-partition": p.partition, class: p.partition === chosen ? "chosen" : null },
        h("td", {}, p.partition),
        h("td", { class: "num" }, p.beginning_offset),
        h("td", { class: "num end-offset" }, p.end_offset),
        h("td", { class: "num" }, p.end_offset - p.beginning_offset),
        h("td", {}, h("a", { href: `${topicHref(name)}/${p.partition}` }, "Last records")))))),
    h("section", { id: "records" }),
  );
  if (chosen !== null) await showRecords(section.querySelector("#records"), name, chosen);
}

async function showRecords(section, name, partition) {
  const body = await api.records(name, partition, LAST_RECORDS);
  put(section,
    h("h3", {}, `Last records of partition ${partition}`),
    h("p", { class: "muted" }, `Keys read with ${body.key_converter}, values with ${body.value_converter}.`),
    body.records.length
      ? h("table", { id: "records-table" },
          h("thead", {}, h("tr", {}, ["Offset", "Timestamp", "Key", "Value", "Headers"].map((c) => h("th", {}, c)))),
          h("tbody", {}, body.records.map((record) => h("tr", { "data-offset": record.offset },
            h("td", { class: "num" }, record.offset),
            h("td", {}, new Date(record.timestamp).toISOString()),
            h("td", { class: "record-key" }, decoded(record.key)),
            h("td", { class: "record-value" }, decoded(record.value)),
            h("td", {}, Object.entries(record.headers).map(([key, value]) => h("div", {}, `${key}: `, decoded(value))))))))
      : h("p", { class: "muted", id: "no-records" }, "No records in this partition."),
  );
}

export function topicsView(name, partition) {
  return {
    title: name ?? "Topics",
    polls: false,
    mount(root) {
      const section = h("section", {}, h("p", { class: "muted" }, "Loading…"));
      put(root, section);
      const load = name === null ? listTopics(section) : showTopic(section, name, partition);
      load.catch((error) => put(section, h("p", { class: "error", id: "topics-error" }, error.message)));
    },
  };
}
