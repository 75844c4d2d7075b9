// Product page logic: the form's text inputs from the design template's variables, debounced
// previews from the Dynamic Image API as the shopper types, variants and mockup views, and Order.
// Each preview's latency (request → image shown) is measured; the line showing it only with ?debug.
// Preflight (issue 21): each card preview's X-Preflight verdict; when it is not `ok` the problems
// are fetched from /api/rendering/preflight and listed beside the preview in the shopper's words.
// Errors block Order (unless the shop allows them); warnings ask the shopper to confirm.
import { orderQuantity } from '/shop/order-input.mjs';
import { cardRequest as cardRequestOf, orderVerdict, preflightCounts, shopperProblems } from '/shop/preflight.mjs';

const $ = (id) => document.getElementById(id);
const debug = new URLSearchParams(location.search).has('debug');
const DEBOUNCE_MS = 150;
const state = {
  product: null, view: 'card', photo: null, seq: 0, shown: 0, cardUrl: null,
  /** The latest preflight: `{ seq, key, report }` (`key`: the card's data it checked; `report` null when unavailable). */
  preflight: { seq: 0, key: null, report: null },
  /** The card data whose warnings the shopper was asked to confirm (the next Order confirms them). */
  confirmKey: null,
};
/** Measured latencies in ms (request sent → new image decoded and shown); the test reads these. */
const latencies = (window.previewLatencies = []);

/** The inputs of variable `v` (one per line of the template's text), in order. */
const lineInputs = (v) => [...document.querySelectorAll(`#fields input[data-variable="${CSS.escape(v)}"]`)];

/**
 * Each text variable's value as the shopper typed it, lines joined; a variable left empty is
 * left out, so the preview shows the template's own text there.
 */
function variableValues() {
  const values = {};
  for (const v of state.product.variables) {
    const lines = lineInputs(v.name).map((i) => i.value.trim());
    if (lines.some(Boolean)) values[v.name] = lines.join('\n');
  }
  return values;
}

function renderFields() {
  let n = 0;
  $('fields').replaceChildren(
    ...state.product.variables.flatMap((v) =>
      v.lines.map((line, i) => {
        const id = `field-${n++}`;
        const label = Object.assign(document.createElement('label'), { htmlFor: id, textContent: v.labels?.[i] ?? line });
        const input = Object.assign(document.createElement('input'), { id, type: 'text', maxLength: state.product.maxLine, placeholder: line });
        input.dataset.variable = v.name;
        input.addEventListener('input', () => {
          resetConfirm();
          schedule();
        });
        return [label, input];
      }),
    ).flat(),
  );
}

/** A preview: its result URL and the X-Preflight verdict it carries (null when absent). */
async function render(body) {
  const res = await fetch('/api/rendering/preview', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const data = await res.json();
  if (!res.ok) throw new Error(data?.detail || data?.title || data?.error || `preview failed (${res.status})`);
  return { url: data, preflight: res.headers.get('x-preflight') };
}

/** The card as typed; on a design with a photo frame, with the shopper's photo in it. */
const cardRequest = () => {
  const p = state.product;
  return cardRequestOf(p.designTemplate, variableValues(), p.photoLayer && state.photo ? { [p.photoLayer]: state.photo } : {});
};
/** What a preflight result is for: the card's data as sent. */
const keyOf = (request) => JSON.stringify(request.data);

/** The card's problems from /api/rendering/preflight; null when the platform cannot say. */
async function fetchPreflight(request) {
  try {
    const res = await fetch('/api/rendering/preflight', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) });
    return res.ok ? await res.json() : null;
  } catch {
    return null;
  }
}

/**
 * The preflight of the card preview number `seq`: `ok` from its header costs nothing more; any
 * other verdict (or none) asks for the problems. An older answer never replaces a newer one.
 */
async function checkCard(seq, request, header) {
  const counts = preflightCounts(header);
  const report = counts && counts.errors + counts.warnings === 0 ? { ok: true, problems: [] } : await fetchPreflight(request);
  if (seq < state.preflight.seq) return;
  state.preflight = { seq, key: keyOf(request), report };
  showPreflight(report);
}

/** Lists the problems beside the preview and marks the inputs of fields with errors. */
function showPreflight(report) {
  const problems = shopperProblems(report, state.product.variables, variableValues());
  const errors = problems.filter((p) => p.severity === 'error');
  for (const input of document.querySelectorAll('#fields input')) {
    const line = lineInputs(input.dataset.variable).indexOf(input);
    const bad = errors.some((p) => p.field === input.dataset.variable && (p.line == null || p.line === line));
    if (bad) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
  }
  // The Order refusal that named these errors goes once they are fixed.
  if (!errors.length && $('order-error').dataset.cause === 'preflight') $('order-error').hidden = true;
  const box = $('preflight');
  box.hidden = problems.length === 0;
  box.classList.toggle('has-errors', errors.length > 0);
  $('preflight-summary').textContent = errors.length
    ? (state.product.preflight?.allowErrors ? 'Your card will not print as shown:' : 'Your card cannot be printed as it is:')
    : 'Please check before ordering:';
  $('preflight-problems').replaceChildren(
    ...problems.map((p) => Object.assign(document.createElement('li'), { className: p.severity, textContent: p.text })),
  );
}

function resetConfirm() {
  state.confirmKey = null;
  $('order-confirm').hidden = true;
  $('order').textContent = 'Order';
}

async function refresh() {
  const seq = ++state.seq;
  const started = performance.now();
  const img = $('preview');
  img.classList.add('busy');
  try {
    const request = cardRequest();
    const card = await render(request);
    let url = card.url;
    state.cardUrl = url;
    checkCard(seq, request, card.preflight);
    const view = state.product.mockups.find((m) => m.id === state.view);
    if (view) {
      const data = { [view.cardLayer]: { type: 'image', image: url, resizeMode: 'fill' } };
      if (state.photo && view.photoLayer) data[view.photoLayer] = { type: 'image', image: state.photo, resizeMode: 'fill' };
      url = (await render({ template: view.template, format: 'jpg', size: { width: 600, height: 600 }, data })).url;
    }
    if (seq < state.shown) return; // a newer preview is already on screen
    const next = new Image();
    next.src = url;
    await next.decode();
    if (seq < state.shown) return;
    state.shown = seq;
    img.src = url;
    const ms = performance.now() - started;
    latencies.push(ms);
    const sorted = [...latencies].sort((a, b) => a - b);
    const p50 = sorted[Math.floor((sorted.length - 1) / 2)];
    $('latency').hidden = !debug;
    $('latency').textContent = `Preview latency: ${ms.toFixed(0)} ms (p50 ${p50.toFixed(0)} ms over ${latencies.length})`;
    $('preview-error').hidden = true;
  } catch (err) {
    $('preview-error').textContent = String(err.message ?? err);
    $('preview-error').hidden = false;
  } finally {
    if (seq === state.seq) img.classList.remove('busy');
  }
}

let timer;
const schedule = () => {
  clearTimeout(timer);
  timer = setTimeout(refresh, DEBOUNCE_MS);
};

function renderViews() {
  const views = [{ id: 'card', name: 'Card' }, ...state.product.mockups];
  $('views').replaceChildren(
    ...views.map((v) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = v.name;
      b.dataset.view = v.id;
      b.setAttribute('aria-pressed', String(v.id === state.view));
      b.addEventListener('click', () => {
        state.view = v.id;
        renderViews();
        refresh();
      });
      return b;
    }),
  );
}

async function start() {
  const reference = new URLSearchParams(location.search).get('product');
  const res = await fetch(`/shop/product.json${reference ? `?product=${encodeURIComponent(reference)}` : ''}`);
  state.product = await res.json();
  if (!res.ok) {
    $('preview-error').textContent = `The product could not be loaded (${res.status}).`;
    $('preview-error').hidden = false;
    return;
  }
  $('product-name').textContent = state.product.name;
  document.title = `${state.product.name} · Demo shop`;
  $('photo-label').textContent = state.product.photoLayer ? 'Your photo (on the card)' : 'Photo (shown on the mockup)';
  for (const a of document.querySelectorAll('header nav a')) {
    if (new URL(a.href).searchParams.get('product') === state.product.reference) a.setAttribute('aria-current', 'page');
  }
  $('product-description').textContent = state.product.description;
  $('variant').replaceChildren(
    ...state.product.variants.map((v) => Object.assign(document.createElement('option'), { value: v.sku, textContent: `${v.title} (${v.sku})` })),
  );
  renderFields();
  renderViews();
  $('variant').addEventListener('change', refresh);
  $('photo').addEventListener('change', async () => {
    const f = $('photo').files[0];
    if (!f) return;
    $('photo-status').textContent = `Uploading ${f.name}…`;
    const up = await fetch('/shop/photo', { method: 'POST', headers: { 'content-type': f.type }, body: f });
    const data = await up.json().catch(() => ({}));
    if (!up.ok) {
      $('photo-status').textContent = data.error || `The photo could not be uploaded (${up.status}). Please try another one.`;
      $('photo-status').classList.add('error');
      return;
    }
    $('photo-status').classList.remove('error');
    state.photo = data.image;
    if (state.product.photoLayer) {
      $('photo-status').textContent = 'Photo ready: shown on the card.';
    } else {
      $('photo-status').textContent = 'Photo ready: shown on the mockup view.';
      if (state.view === 'card' && state.product.mockups[0]) state.view = state.product.mockups[0].id, renderViews();
    }
    refresh();
  });
  // A corrected quantity clears its message at once, not at the next Order.
  $('quantity').addEventListener('input', () => {
    if ($('quantity').getAttribute('aria-invalid') !== 'true') return;
    $('quantity').removeAttribute('aria-invalid');
    $('order-error').hidden = true;
  });
  $('card').addEventListener('submit', async (e) => {
    e.preventDefault();
    $('order-error').hidden = true;
    delete $('order-error').dataset.cause;
    // The same rule as the server's (order-input.mjs), so the shopper reads it before ordering.
    const quantity = orderQuantity($('quantity').value);
    $('quantity').setAttribute('aria-invalid', String(Boolean(quantity.error)));
    if (quantity.error) {
      $('order-error').textContent = quantity.error;
      $('order-error').hidden = false;
      $('quantity').focus();
      return;
    }
    $('order').disabled = true;
    // The preflight of the card exactly as it stands (typing may not have been checked yet).
    const request = cardRequest();
    const key = keyOf(request);
    if (state.preflight.key !== key) {
      const seq = state.seq;
      const report = await fetchPreflight(request);
      state.preflight = { seq, key, report };
      showPreflight(report);
    }
    const verdict = orderVerdict(state.preflight.report, { allowErrors: Boolean(state.product.preflight?.allowErrors) });
    if (verdict === 'block') {
      $('order-error').textContent = 'Your card cannot be printed as it is: please fix the problems shown beside the preview first.';
      $('order-error').dataset.cause = 'preflight';
      $('order-error').hidden = false;
      $('order').disabled = false;
      document.querySelector('#fields input[aria-invalid=true]')?.focus();
      return;
    }
    if (verdict === 'confirm' && state.confirmKey !== key) {
      const n = state.preflight.report.problems.length;
      state.confirmKey = key;
      $('order-confirm').textContent = `Your card has ${n === 1 ? 'a problem' : `${n} problems`} (listed beside the preview). Order it anyway? Press "Order anyway" to confirm, or change your text.`;
      $('order-confirm').hidden = false;
      $('order').textContent = 'Order anyway';
      $('order').disabled = false;
      return;
    }
    const res = await fetch('/shop/order', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ product: state.product.reference, fields: variableValues(), photo: state.photo, sku: $('variant').value, quantity: $('quantity').value, acceptWarnings: verdict === 'confirm' }),
    });
    const data = await res.json().catch(() => ({}));
    if (res.status === 201) return location.assign(data.orderUrl);
    // The server's own preflight found what the page had not yet shown: show it, ask again.
    if (Array.isArray(data.problems)) {
      state.preflight = { seq: state.seq, key, report: { ok: res.status !== 422, problems: data.problems } };
      showPreflight(state.preflight.report);
      resetConfirm();
    }
    $('order-error').textContent = data.detail || data.title || `The order could not be placed (${res.status}). Please try again.`;
    $('order-error').hidden = false;
    $('order').disabled = false;
  });
  refresh();
}
start();
