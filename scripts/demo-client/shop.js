// Product page logic: debounced previews from the Dynamic Image API as the shopper types, each
// preview's latency (request → image shown) on the page, variants and mockup views, and Order.
const $ = (id) => document.getElementById(id);
const DEBOUNCE_MS = 150;
const state = { product: null, view: 'card', photo: null, seq: 0, shown: 0, cardUrl: null };
/** Measured latencies in ms (request sent → new image decoded and shown); the test reads these. */
const latencies = (window.previewLatencies = []);

function cardText() {
  const lines = [$('name').value, $('line1').value, $('line2').value].map((s) => s.trim());
  return lines.some(Boolean) ? lines.join('\n') : 'Your name\nLine 2\nLine 3';
}

async function render(body) {
  const res = await fetch('/api/rendering/preview', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const data = await res.json();
  if (!res.ok) throw new Error(data?.detail || data?.title || data?.error || `preview failed (${res.status})`);
  return data; // the result URL
}

function cardRequest() {
  const p = state.product;
  return { template: p.designTemplate, format: 'jpg', size: { width: 600, height: 600 }, data: { [p.textLayer]: { type: 'text', text: cardText() } } };
}

async function refresh() {
  const seq = ++state.seq;
  const started = performance.now();
  const img = $('preview');
  img.classList.add('busy');
  try {
    let url = await render(cardRequest());
    state.cardUrl = url;
    const view = state.product.mockups.find((m) => m.id === state.view);
    if (view) {
      const data = { [view.cardLayer]: { type: 'image', image: url, resizeMode: 'fill' } };
      if (state.photo) data[view.photoLayer] = { type: 'image', image: state.photo, resizeMode: 'fill' };
      url = await render({ template: view.template, format: 'jpg', size: { width: 600, height: 600 }, data });
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
  const res = await fetch('/shop/product.json');
  state.product = await res.json();
  if (!res.ok) {
    $('preview-error').textContent = `The product could not be loaded (${res.status}).`;
    $('preview-error').hidden = false;
    return;
  }
  $('product-name').textContent = state.product.name;
  $('product-description').textContent = state.product.description;
  $('variant').replaceChildren(
    ...state.product.variants.map((v) => Object.assign(document.createElement('option'), { value: v.sku, textContent: `${v.title} (${v.sku})` })),
  );
  renderViews();
  for (const id of ['name', 'line1', 'line2']) $(id).addEventListener('input', schedule);
  $('variant').addEventListener('change', refresh);
  $('photo').addEventListener('change', async () => {
    const f = $('photo').files[0];
    if (!f) return;
    $('photo-status').textContent = `Uploading ${f.name}…`;
    const up = await fetch('/shop/photo', { method: 'POST', headers: { 'content-type': f.type }, body: f });
    const data = await up.json();
    if (!up.ok) {
      $('photo-status').textContent = data.error || data.detail || `Upload failed (${up.status})`;
      return;
    }
    state.photo = data.image;
    $('photo-status').textContent = `Photo ready: shown on the mockup view.`;
    if (state.view === 'card' && state.product.mockups[0]) state.view = state.product.mockups[0].id, renderViews();
    refresh();
  });
  $('card').addEventListener('submit', async (e) => {
    e.preventDefault();
    $('order').disabled = true;
    $('order-error').hidden = true;
    const res = await fetch('/shop/order', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: $('name').value, line1: $('line1').value, line2: $('line2').value, photo: state.photo, sku: $('variant').value, quantity: $('quantity').value }),
    });
    const data = await res.json();
    if (res.status === 201) return location.assign(data.orderUrl);
    $('order-error').textContent = data.detail || data.title || JSON.stringify(data);
    $('order-error').hidden = false;
    $('order').disabled = false;
  });
  refresh();
}
start();
