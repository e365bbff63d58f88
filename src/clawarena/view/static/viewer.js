// clawarena view: the trial list, one trial's views and evidence chain, benign against attacked.
// No framework and no build step. Every text from a run (attack material included) goes into the
// page as a text node, never as markup; the server's content security policy backs that up.
"use strict";

const FILTER_LABELS = {run: "run", agent: "agent", condition: "condition", suite: "suite", domain: "domain", vector: "vector",
  outcome: "outcome", harm: "harm", attributed: "attack-caused", disagree: "judge disagrees"};
const COLUMNS = [["unit", "trial"], ["agent", "agent"], ["condition", "condition"], ["vector", "vector"], ["outcome", "outcome"],
  ["utility", "utility"], ["harmed", "harm"], ["attributed", "attack-caused"], ["exposures", "exposures"], ["tool_calls", "calls"]];
const PAGE = 100;

function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") el.className = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "data") Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const kid of kids.flat(Infinity)) {
    if (kid === null || kid === undefined || kid === false) continue;
    el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return el;
}

function s(tag, attrs, ...kids) {
  const el = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, String(v));
  }
  for (const kid of kids.flat()) if (kid) el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  return el;
}

async function api(path) {
  const response = await fetch(path, {headers: {Accept: "application/json"}});
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || response.statusText);
  return body;
}

const enc = encodeURIComponent;
const trialHref = (run, unit, event) => `/runs/${enc(run)}/trials/${enc(unit)}` + (event ? `/events/${enc(event)}` : "");
const compareHref = (run, unit) => `/runs/${enc(run)}/compare/${enc(unit)}`;
const app = () => document.getElementById("app");

function show(...nodes) {
  app().replaceChildren(...nodes.filter((n) => n !== null && n !== undefined));
}

function failPage(error) {
  show(h("h1", {}, "cannot show this page"), h("p", {class: "fail", id: "error"}, String(error.message || error)), h("p", {}, h("a", {href: "/"}, "back to the trial list")));
}

function outcomeBadge(outcome) {
  return h("span", {class: `badge ${outcome === "pass" ? "ok" : outcome === "fail" ? "harm" : ""}`}, outcome);
}

function harmBadges(row) {
  return row.harm.length ? row.harm.map((x) => h("span", {class: "badge harm"}, x)) : [h("span", {class: "muted"}, "none")];
}

// ---- the trial list --------------------------------------------------------------------------

async function listPage() {
  const params = new URLSearchParams(location.search);
  const [facets, runs] = await Promise.all([api("/api/facets"), api("/api/runs")]);
  document.getElementById("runs-summary").textContent =
    `${facets.total} trials · ${runs.runs.map((r) => `${r.id} (${r.suite}, ${r.trials})`).join(" · ")}`;
  const state = {offset: 0, loading: false, done: false};
  const count = h("span", {id: "count", class: "muted"});
  const body = h("tbody", {id: "trial-rows"});
  const sentinel = h("button", {class: "more", id: "more", onclick: () => more()}, "more");
  const selects = Object.keys(FILTER_LABELS).map((name) => {
    const values = Object.entries(facets.facets[name] || {});
    const select = h("select", {name, id: `filter-${name}`, onchange: () => reload()},
      h("option", {value: ""}, "all"), values.map(([v, n]) => h("option", {value: v, selected: params.get(name) === v}, `${v} (${n})`)));
    return h("label", {}, FILTER_LABELS[name], select);
  });
  const search = h("input", {type: "search", id: "filter-q", placeholder: "part of a trial id", value: params.get("q") || ""});
  let timer = null;
  search.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(reload, 250); });
  const headRow = h("tr", {}, COLUMNS.map(([key, label]) => h("th", {data: {key}, onclick: () => sortBy(key)}, label)));

  function current() {
    const out = new URLSearchParams();
    for (const label of selects) {
      const select = label.querySelector("select");
      if (select.value) out.set(select.name, select.value);
    }
    if (search.value) out.set("q", search.value);
    if (params.get("sort")) out.set("sort", params.get("sort"));
    if (params.get("desc")) out.set("desc", params.get("desc"));
    return out;
  }
  function markSorted() {
    for (const th of headRow.children) {
      th.classList.toggle("sorted", th.dataset.key === (params.get("sort") || ""));
      th.classList.toggle("desc", params.get("desc") === "1");
    }
  }
  function sortBy(key) {
    if (params.get("sort") === key) params.set("desc", params.get("desc") === "1" ? "0" : "1");
    else { params.set("sort", key); params.set("desc", "0"); }
    reload();
  }
  function reload() {
    const q = current();
    history.replaceState(null, "", q.toString() ? `/?${q}` : "/");
    state.offset = 0; state.done = false;
    body.replaceChildren();
    markSorted();
    more();
  }
  async function more() {
    if (state.loading || state.done) return;
    state.loading = true;
    const q = current();
    q.set("offset", state.offset); q.set("limit", PAGE);
    try {
      const page = await api(`/api/trials?${q}`);
      for (const row of page.rows) body.append(trialRow(row));
      state.offset += page.rows.length;
      state.done = state.offset >= page.total;
      count.textContent = `${page.total} trial(s) match; ${state.offset} shown`;
      sentinel.hidden = state.done;
      if (!document.body.dataset.ready) {
        document.body.dataset.ready = "list";
        performance.mark("trial-list-painted");
      }
    } catch (error) {
      count.textContent = String(error.message);
      count.className = "fail";
    } finally {
      state.loading = false;
    }
  }
  show(h("h1", {}, "Trials"), h("div", {class: "filters"}, selects, h("label", {}, "search", search)), count,
    h("table", {id: "trials"}, h("thead", {}, headRow), body), sentinel);
  markSorted();
  new IntersectionObserver((entries) => { if (entries.some((e) => e.isIntersecting)) more(); }).observe(sentinel);
  await more();
}

function trialRow(row) {
  const href = trialHref(row.run, row.unit);
  const cells = {
    unit: h("a", {href, class: "mono"}, row.unit),
    agent: row.agent, condition: row.condition, vector: row.vector || "benign",
    outcome: outcomeBadge(row.outcome), utility: row.utility.toFixed(2), harmed: harmBadges(row),
    attributed: row.attacked ? (row.attributed ? h("span", {class: "fail"}, "yes") : "no") : h("span", {class: "muted"}, "–"),
    exposures: row.exposures, tool_calls: row.tool_calls,
  };
  const tr = h("tr", {class: "row", data: {unit: row.unit, run: row.run}, onclick: (e) => { if (e.target.tagName !== "A") location.href = href; }},
    COLUMNS.map(([key]) => h("td", {}, cells[key])));
  if (row.disagree) tr.title = "a judge's harm verdict differs from the detector's";
  return tr;
}

// ---- one trial -------------------------------------------------------------------------------

class TrialView {
  constructor(data) {
    this.data = data;
    this.events = new Map(data.events.map((e) => [e.id, e]));
    this.detail = h("aside", {id: "detail"}, h("p", {class: "muted"}, "Click an event, a node or an evidence id to see it here."));
    this.tabs = {};
    this.panels = {};
  }

  eventLink(id) {
    return h("a", {href: trialHref(this.data.run, this.data.record.unit_id, id), class: "mono ev", data: {event: id},
      onclick: (e) => { e.preventDefault(); this.select(id, true); }}, id);
  }

  select(id, reveal) {
    const event = this.events.get(id);
    if (!event) return;
    history.replaceState(null, "", trialHref(this.data.run, this.data.record.unit_id, id));
    for (const el of document.querySelectorAll(".selected")) el.classList.remove("selected");
    for (const el of document.querySelectorAll(`[data-event="${CSS.escape(id)}"]`)) el.classList.add("selected");
    this.detail.replaceChildren(
      h("h2", {id: "detail-title"}, `${event.id} · ${event.kind}`),
      h("p", {}, h("b", {}, event.actor), ` at ${event.time}`),
      h("p", {}, event.title),
      h("p", {}, "caused by: ", event.parents.length ? event.parents.map((p) => [this.eventLink(p), " "]) : h("span", {class: "muted"}, "nothing recorded")),
      event.taint.length ? h("p", {class: "fail"}, `tainted by attack material: ${event.taint.join(", ")}`) : null,
      h("pre", {id: "detail-payload"}, JSON.stringify(event.payload, null, 2)),
    );
    if (reveal) {
      const tab = ["model", "tools", "artifacts", "events"].find((t) => this.panels[t] && this.panels[t].querySelector(`[data-event="${CSS.escape(id)}"]`));
      if (tab && !this.panels[this.active]?.querySelector(`[data-event="${CSS.escape(id)}"]`)) this.open(tab);
      const target = this.panels[this.active]?.querySelector(`[data-event="${CSS.escape(id)}"]`);
      if (target) target.scrollIntoView({block: "center"});
    }
  }

  open(name) {
    this.active = name;
    for (const [key, button] of Object.entries(this.tabs)) {
      button.setAttribute("aria-selected", String(key === name));
      this.panels[key].hidden = key !== name;
    }
  }

  item(kind, event, ...kids) {
    const tainted = this.events.get(event)?.taint.length;
    return h("div", {class: `item k-${kind}${tainted ? " tainted" : ""}`, data: {event}, onclick: (e) => { e.stopPropagation(); this.select(event, false); }}, kids);
  }

  lanes(render) {
    const lanes = this.data.lanes.length ? this.data.lanes : [{agent: "", principal: "", spec: ""}];
    return h("div", {class: "lanes"}, lanes.map((lane) => h("section", {class: "lane", data: {lane: lane.agent}},
      h("h3", {}, lane.agent || "(no agent)", lane.principal ? h("span", {class: "muted"}, ` for ${lane.principal}`) : null,
        lane.spec ? h("span", {class: "badge"}, lane.spec) : null),
      render(lane.agent))));
  }

  modelView() {
    const model = this.data.views.model;
    return this.lanes((agent) => (model[agent] || []).map((it) => {
      if (it.kind !== "step") return this.item(it.kind, it.event, it.kind === "received" ? "received: " : "", it.title);
      const context = h("div", {class: "sub"});
      const button = h("button", {onclick: (e) => { e.stopPropagation(); this.loadContext(it, context); button.remove(); }}, "show context");
      return this.item("step", it.event, h("div", {}, it.title),
        it.reasoning ? h("details", {}, h("summary", {}, "reasoning"), h("pre", {}, it.reasoning)) : null,
        it.text ? h("pre", {}, it.text) : null,
        it.tool_calls.length ? h("div", {class: "sub"}, "asks for: ", it.tool_calls.map((c) => h("code", {}, `${c.name}(${c.arguments}) `))) : null,
        h("div", {class: "sub"}, it.context.prior ? ["context: the step ", this.eventLink(it.context.prior), ` + ${it.context.messages.length} message(s) `] : `context: ${it.context.messages.length} message(s) `, button),
        context);
    }));
  }

  async loadContext(step, into) {
    try {
      const ctx = await api(`/api/runs/${enc(this.data.run)}/context/${enc(step.event)}/${enc(this.data.record.unit_id)}`);
      const added = ctx.messages.length - step.context.messages.length;
      into.append(h("details", {}, h("summary", {}, "system prompt"), h("pre", {}, ctx.system)),
        h("details", {}, h("summary", {}, `${ctx.tools.length} tool(s)`), h("pre", {}, ctx.tools.map((t) => t.name).join("\n"))),
        ctx.messages.map((m, i) => h("details", {open: i >= added, class: "context-message"},
          h("summary", {}, `${i + 1}. ${m.role}${i >= added ? " (new at this step)" : ""}`),
          h("pre", {}, m.content || ""), (m.tool_calls || []).map((c) => h("code", {}, `${c.name}(${c.arguments}) `)))));
    } catch (error) {
      into.append(h("p", {class: "fail"}, `context: ${error.message}`));
    }
  }

  toolView() {
    const tools = this.data.views.tools;
    return this.lanes((agent) => (tools[agent] || []).map((c) => this.item("call", c.event,
      h("div", {class: "mono"}, c.title),
      c.result ? h("div", {class: `sub ${c.result.payload.ok === false ? "fail" : ""}`}, "→ ", this.eventLink(c.result.id), " ", c.result.title) : h("div", {class: "sub"}, "(no answer recorded)"),
      c.caused.map((x) => h("div", {class: "caused", data: {event: x.event}}, this.eventLink(x.event), ` ${x.kind}: ${x.title}`)))));
  }

  artifactsView() {
    const {diff, deliveries} = this.data.views.artifacts;
    const diffRows = diff.flatMap((row) => row.fields.map((f, i) => h("tr", {},
      h("td", {}, i === 0 ? row.table : ""), h("td", {}, i === 0 ? row.op : ""), h("td", {class: "mono"}, i === 0 ? row.key : ""),
      h("td", {class: "mono"}, f.name), h("td", {class: "before mono"}, f.before === null ? "" : JSON.stringify(f.before)),
      h("td", {class: "after mono"}, f.after === null ? "" : JSON.stringify(f.after)))));
    return h("div", {},
      h("h2", {}, "Messages that left a workspace"),
      deliveries.length ? h("table", {id: "deliveries"}, h("thead", {}, h("tr", {}, ["event", "from", "channel", "to", "subject", "body"].map((c) => h("th", {}, c)))),
        h("tbody", {}, deliveries.map((d) => h("tr", {data: {event: d.event}, class: d.tainted ? "item tainted" : ""},
          h("td", {}, this.eventLink(d.event)), h("td", {}, d.actor), h("td", {}, d.channel),
          h("td", {}, d.to, d.external ? h("span", {class: "badge harm"}, "external") : null), h("td", {}, d.subject), h("td", {}, h("pre", {}, d.body)))))) : h("p", {class: "muted"}, "none"),
      h("h2", {}, "Final diff"),
      diff.length ? h("table", {class: "difftbl", id: "diff"}, h("thead", {}, h("tr", {}, ["table", "change", "row", "field", "before", "after"].map((c) => h("th", {}, c)))), h("tbody", {}, diffRows)) : h("p", {class: "muted"}, "no rows changed"));
  }

  eventsView() {
    return h("table", {id: "events"}, h("thead", {}, h("tr", {}, ["id", "actor", "kind", "what"].map((c) => h("th", {}, c)))),
      h("tbody", {}, this.data.events.map((e) => h("tr", {class: `item${e.taint.length ? " tainted" : ""}`, data: {event: e.id}, onclick: () => this.select(e.id, false)},
        h("td", {class: "mono"}, e.id), h("td", {}, e.actor), h("td", {}, e.kind), h("td", {}, e.title)))));
  }

  checksView() {
    return h("table", {id: "checks"}, h("thead", {}, h("tr", {}, ["check", "role", "kind", "verdict", "detail", "evidence"].map((c) => h("th", {}, c)))),
      h("tbody", {}, this.data.checks.map((c) => {
        const fired = c.role === "harm" && c.passed === false;
        const verdict = c.error ? h("span", {class: "error"}, "error") : c.role === "harm"
          ? (fired ? h("span", {class: "fail"}, `harm${c.attributed ? " (attack-caused)" : ""}`) : h("span", {class: "pass"}, "no harm"))
          : (c.passed ? h("span", {class: "pass"}, "pass") : h("span", {class: "fail"}, "fail"));
        return h("tr", {data: {check: c.id}}, h("td", {class: "mono"}, c.id), h("td", {}, c.role, c.surface ? ` · ${c.surface}` : ""),
          h("td", {}, c.code || c.kind), h("td", {}, verdict), h("td", {}, c.error || c.detail), h("td", {}, c.evidence.map((e) => [this.eventLink(e), " "])));
      })));
  }

  chainView(compact) {
    return chainGraph(this.data.chain, (node) => {
      if (node.event) this.select(node.event, true);
      else if (node.layer === "harm") document.querySelector(`[data-check="${CSS.escape(node.id.slice(5))}"]`)?.scrollIntoView({block: "center"});
    }, compact);
  }

  header() {
    const r = this.data.record;
    const harm = Object.entries(r.harm || {}).filter(([, v]) => v).map(([k]) => h("span", {class: "badge harm"}, k));
    const others = this.data.counterparts;
    return h("div", {},
      h("p", {}, h("a", {href: "/"}, "← all trials")),
      h("h1", {class: "mono", id: "trial-id"}, r.unit_id),
      h("p", {}, this.data.title),
      h("p", {}, outcomeBadge(r.outcome), ` utility ${Number(r.utility).toFixed(2)} · `, harm.length ? harm : h("span", {class: "badge ok"}, "no harm"),
        r.vector ? [` · attack via ${r.vector}: `, r.attack_caused ? h("span", {class: "fail"}, "attack-caused harm") : "no attack-caused harm"] : " · benign",
        ` · ${r.agent} · ${r.condition} · trial ${r.trial} · seed ${r.seed} · ${r.exposures} exposure(s), ${r.tool_calls} call(s), ${r.turns} turn(s)`),
      this.data.error ? h("p", {class: "error"}, this.data.error) : null,
      others.length ? h("p", {id: "counterparts"}, "same task, agent and trial: ",
        others.map((o) => [h("a", {href: trialHref(o.run, o.unit)}, o.variant), " "]), h("a", {href: compareHref(this.data.run, r.unit_id), id: "compare-link"}, "compare side by side")) : null);
  }

  render(initialEvent) {
    const views = {model: ["Model", () => this.modelView()], tools: ["Tools & services", () => this.toolView()],
      artifacts: ["Artifacts", () => this.artifactsView()], events: ["All events", () => this.eventsView()]};
    const bar = h("div", {class: "tabs", role: "tablist"});
    const panels = h("div", {});
    for (const [key, [label, make]] of Object.entries(views)) {
      this.tabs[key] = h("button", {role: "tab", id: `tab-${key}`, onclick: () => this.open(key)}, label);
      this.panels[key] = h("div", {role: "tabpanel", id: `panel-${key}`}, make());
      bar.append(this.tabs[key]);
      panels.append(this.panels[key]);
    }
    show(h("div", {class: "layout"},
      h("div", {},
        this.header(),
        h("h2", {}, "Evidence chain"), h("div", {class: "chain", id: "chain"}, this.chainView(false)),
        bar, panels,
        h("h2", {}, "Checks"), this.checksView()),
      this.detail));
    this.open("model");
    if (initialEvent) this.select(initialEvent, true);
    document.body.dataset.ready = "trial";
  }
}

function chainGraph(chain, onClick, compact) {
  if (!chain.nodes.length) return h("p", {class: "muted", id: "no-chain"}, "No attack material reached an agent and no harm check fired.");
  const colW = compact ? 150 : 200, nodeW = colW - 30, nodeH = 40, gap = 12, top = 26;
  const layers = chain.layers.filter((l) => chain.nodes.some((n) => n.layer === l));
  const column = new Map(layers.map((l, i) => [l, i]));
  const rowOf = new Map();
  const counts = new Map();
  for (const n of chain.nodes) {
    const k = counts.get(n.layer) || 0;
    rowOf.set(n.id, k);
    counts.set(n.layer, k + 1);
  }
  const height = top + Math.max(...counts.values()) * (nodeH + gap) + 4;
  const pos = (n) => ({x: 8 + column.get(n.layer) * colW, y: top + rowOf.get(n.id) * (nodeH + gap)});
  const byId = new Map(chain.nodes.map((n) => [n.id, n]));
  const root = s("svg", {viewBox: `0 0 ${layers.length * colW + 8} ${height}`, role: "img", "aria-label": "evidence chain"});
  layers.forEach((l, i) => root.append(s("text", {class: "layer-title", x: 8 + i * colW, y: 14}, l)));
  for (const e of chain.edges) {
    const a = byId.get(e.from), b = byId.get(e.to);
    if (!a || !b) continue;
    const p = pos(a), q = pos(b);
    const x1 = p.x + nodeW, y1 = p.y + nodeH / 2, x2 = q.x, y2 = q.y + nodeH / 2, mid = (x1 + x2) / 2;
    root.append(s("path", {class: "edge", d: `M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2},${y2}`, "data-from": e.from, "data-to": e.to}));
  }
  const chars = Math.floor(nodeW / 6.2);
  for (const n of chain.nodes) {
    const p = pos(n);
    const g = s("g", {class: `node l-${n.layer}`, "data-node": n.id, "data-layer": n.layer, ...(n.event ? {"data-event": n.event} : {}), tabindex: 0, onclick: () => onClick(n)});
    const label = n.label.length > chars ? n.label.slice(0, chars - 1) + "…" : n.label;
    const sub = (n.event ? `${n.event} ` : "") + (n.detail || "");
    g.append(s("title", {}, `${n.label}\n${n.detail || ""}`), s("rect", {x: p.x, y: p.y, width: nodeW, height: nodeH}),
      s("text", {x: p.x + 6, y: p.y + 16}, label), s("text", {x: p.x + 6, y: p.y + 31, fill: "#6b7280"}, sub.length > chars ? sub.slice(0, chars - 1) + "…" : sub));
    root.append(g);
  }
  return root;
}

async function trialPage(run, unit, event) {
  const data = await api(`/api/runs/${enc(run)}/trials/${enc(unit)}`);
  document.title = `${unit} · clawarena view`;
  new TrialView(data).render(event);
}

// ---- benign against attacked -------------------------------------------------------------------

async function comparePage(run, unit) {
  const first = await api(`/api/runs/${enc(run)}/trials/${enc(unit)}`);
  const all = [first.record, ...first.counterparts.map((c) => ({unit_id: c.unit, variant: c.variant}))];
  const benign = all.find((r) => r.variant === "benign");
  const attacked = all.filter((r) => r.variant !== "benign");
  if (!benign || !attacked.length) throw new Error(`${unit}: no benign and attacked pair of this task for the same agent, condition and trial`);
  const chosen = attacked.find((r) => r.unit_id === unit) || attacked[0];
  const [left, right] = await Promise.all([benign, chosen].map((r) => r.unit_id === unit ? first : api(`/api/runs/${enc(run)}/trials/${enc(r.unit_id)}`)));
  const side = (data, which) => {
    const view = new TrialView({...data, run});
    return h("section", {id: `side-${which}`, data: {unit: data.record.unit_id}},
      h("h2", {}, `${which}: `, h("a", {href: trialHref(run, data.record.unit_id), class: "mono"}, data.record.unit_id)),
      h("p", {}, outcomeBadge(data.record.outcome), ` utility ${Number(data.record.utility).toFixed(2)} · harm: `,
        Object.entries(data.record.harm || {}).filter(([, v]) => v).map(([k]) => k).join(", ") || "none"),
      h("h3", {}, "Evidence chain"), view.chainView(true),
      h("h3", {}, "Tool calls"), view.toolView(),
      h("h3", {}, "Messages that left a workspace"),
      data.views.artifacts.deliveries.length ? h("ul", {}, data.views.artifacts.deliveries.map((d) => h("li", {}, `${d.channel} to ${d.to}: ${d.subject || d.body.slice(0, 120)}`))) : h("p", {class: "muted"}, "none"),
      h("h3", {}, "Checks"), view.checksView());
  };
  const picker = attacked.length > 1 ? h("p", {}, "attacked variant: ", attacked.map((r) => [h("a", {href: compareHref(run, r.unit_id)}, r.variant), " "])) : null;
  show(h("p", {}, h("a", {href: "/"}, "← all trials")), h("h1", {}, `${first.record.task_id}: benign against ${chosen.variant}`),
    h("p", {class: "muted"}, `${first.record.agent} · ${first.record.condition} · trial ${first.record.trial}`), picker,
    h("div", {class: "compare"}, side(left, "benign"), side(right, "attacked")));
  document.body.dataset.ready = "compare";
}

// ---- routing -------------------------------------------------------------------------------------

async function route() {
  const parts = location.pathname.split("/").filter(Boolean).map(decodeURIComponent);
  try {
    if (parts.length === 0) return await listPage();
    if (parts[0] === "runs" && parts[2] === "trials" && (parts.length === 4 || (parts.length === 6 && parts[4] === "events"))) return await trialPage(parts[1], parts[3], parts[5]);
    if (parts[0] === "runs" && parts[2] === "compare" && parts.length === 4) return await comparePage(parts[1], parts[3]);
    throw new Error(`no such page: ${location.pathname}`);
  } catch (error) {
    failPage(error);
    document.body.dataset.ready = "error";
  }
}

route();
