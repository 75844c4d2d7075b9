// The storefront demo of `npm run demo:client`: product pages for the seeded products of
// storefront 1 (the "Business card", reference `business-card`, and the small "Demo card",
// `demo-card`) as a shop would build one, and the order page.
//   GET  /shop[?product=<ref>]     product page (plain HTML + /shop/shop.js, no third-party script)
//   GET  /shop/product.json?product=<ref>   the reference's product, variants and mockups (storefront API)
//   POST /api/rendering/preview    passed to the platform's Dynamic Image API (same origin for the page),
//                                  with its X-Preflight verdict
//   POST /api/rendering/preflight  passed on likewise: the problems of the card as typed (issue 21)
//   POST /shop/photo               the shopper's photo → a stored rendering image (API key stays here)
//   POST /shop/order               preflights the card, then creates the project (with-single-item)
//                                  → 201 {id, orderUrl}; 422 {problems} on errors (unless the shop
//                                  allows them), 409 {problems} on warnings the shopper did not confirm
//   GET  /shop/orders/{id}         order page; /status polls processing-results; /files/{artifact} downloads
// The storefront API is called with demo-backend's client credentials, here on the server only:
// the browser never sees a token or a secret.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { orderQuantity } from './order-input.mjs';
import { cardRequest, orderVerdict } from './preflight.mjs';

const here = import.meta.dirname;
const STOREFRONT_ID = 1;
const OWNER = 'demo-customer';
/**
 * The products the shop sells, by storefront reference: the rendering template of the design,
 * the design's layer the shopper's photo fills (if any), and each mockup's rendering twin with
 * the smart object the card preview goes into (and the one the photo goes into, if any).
 */
const PRODUCTS = {
  'business-card': {
    template: 'demo/demo-business-card',
    photoLayer: 'Photo',
    views: {
      'demo-mockup-desk': { template: 'demo/demo-mockup-desk', cardLayer: 'Card' },
      'demo-mockup-mug': { template: 'demo/demo-mockup-mug', cardLayer: 'Print area' },
    },
  },
  'demo-card': {
    template: 'demo/psdtools-text',
    views: { 'demo-mockup': { template: 'demo/agpsd-shapes-smart-objects', cardLayer: 'calendar', photoLayer: 'apple' } },
  },
};
const DEFAULT_PRODUCT = 'business-card';
/** The product a request names (`?product=`, or an order's `product`), else the default. */
const productRef = (name) => (typeof name === 'string' && Object.hasOwn(PRODUCTS, name) ? name : DEFAULT_PRODUCT);

/** A line of a text variable is at most this long (the form's maxlength; the server checks it too). */
const MAX_LINE = 80;

/**
 * The design template's text variables as the rendering API's template information gives them,
 * in reading order (top to bottom on the design, then left to right): `{ name, lines, labels,
 * required }`. `name` is the layer's full name, markers such as `<REQ>` included: the field the
 * platform's render tasks fill the layer from (they match full layer names; the back office
 * shows the name without markers). `lines` is the layer's own text split into lines. The shop
 * offers one input per line: a one-line variable is labelled with its data name (its name
 * without markers: "Name"), a variable of several lines with each of its lines (the template's
 * own wording); the text is the placeholder.
 */
async function templateVariables(api, template) {
  const res = await fetch(`${api}/api/information/template`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ template, fullInfo: true }) });
  if (!res.ok) throw new Error(`template information of ${template}: ${res.status}`);
  const found = [];
  const walk = (layers) => {
    for (const layer of layers ?? []) {
      if (layer.type === 'Text' && typeof layer.text?.text === 'string') {
        const label = layer.settings?.dataName ?? layer.name;
        const lines = layer.text.text.split(/\r\n|\r|\n/);
        found.push({ top: layer.bounds?.top ?? 0, left: layer.bounds?.left ?? 0, variable: { name: layer.name, lines, labels: lines.length === 1 ? [label] : lines, required: layer.settings?.required === true } });
      }
      walk(layer.layers);
    }
  };
  walk((await res.json()).layers);
  return found.sort((a, b) => a.top - b.top || a.left - b.left).map((f) => f.variable);
}

/**
 * The item's fields from what the form sent: each text variable of the template under its own
 * name, its lines joined; names the template does not have are dropped, over-long lines refused.
 */
export function orderFields(variables, sent) {
  const fields = {};
  for (const v of variables) {
    const value = sent && typeof sent[v.name] === 'string' ? sent[v.name] : '';
    const lines = value.split('\n').slice(0, v.lines.length).map((s) => s.trim());
    if (lines.some((l) => l.length > MAX_LINE)) return { error: `A line of "${(v.labels ?? v.lines).join(' / ')}" is longer than ${MAX_LINE} characters.` };
    if (lines.some(Boolean)) fields[v.name] = lines.join('\n');
  }
  return { fields };
}

/** What a shopper reads when the photo is refused, by the status the platform answered. */
function photoRefusal(status) {
  if (status === 413) return 'This photo is too large: pick one under 15 MB.';
  if (status === 415) return 'Pick a JPEG or PNG photo.';
  if (status === 400 || status === 422) return 'This photo could not be read as a JPEG or PNG image. Try another photo, or save it again as JPEG.';
  return `The photo could not be uploaded just now (${status}). Please try again.`;
}

/**
 * `allowPreflightErrors`: the shop's setting whether a card with preflight errors (text that does
 * not fit, a required field left empty) may still be ordered; default no (DEMO_ALLOW_PREFLIGHT_ERRORS=1: yes).
 */
export function createShop({
  issuer,
  clientId = 'demo-backend',
  clientSecret = 'demo-backend-secret',
  apiKey = 'demo-api-key',
  allowPreflightErrors = process.env.DEMO_ALLOW_PREFLIGHT_ERRORS === '1',
}) {
  const api = issuer.href.replace(/\/$/, '');
  let token = null; // { value, expires }

  async function accessToken() {
    if (token && token.expires > Date.now() + 30_000) return token.value;
    const res = await fetch(`${api}/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'Projects_full Products_read Private_assets_full Assets_read Artifacts_read' }),
    });
    const body = await res.json();
    if (!res.ok) throw new Error(`token: ${res.status} ${JSON.stringify(body)}`);
    token = { value: body.access_token, expires: Date.now() + body.expires_in * 1000 };
    return token.value;
  }

  async function storefront(method, pathAndQuery, body) {
    const res = await fetch(`${api}/api/storefront/v1${pathAndQuery}`, {
      method,
      headers: { authorization: `Bearer ${await accessToken()}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    const data = text ? (res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text) : null;
    return { status: res.status, data };
  }

  async function product(reference) {
    const shop = PRODUCTS[reference];
    const ref = await storefront('GET', `/product-references/${reference}/product?storefrontId=${STOREFRONT_ID}`);
    if (ref.status !== 200) return { status: ref.status, data: ref.data };
    const p = ref.data;
    const [variants, mockups, variables] = await Promise.all([
      storefront('GET', `/products/${p.id}/variants?takeAvailableOnly=true`),
      storefront('GET', `/products/${p.id}/variant-mockups`),
      templateVariables(api, shop.template),
    ]);
    return {
      status: 200,
      data: {
        reference,
        name: p.name,
        designTemplate: shop.template,
        photoLayer: shop.photoLayer ?? null,
        others: Object.keys(PRODUCTS).filter((r) => r !== reference),
        variables,
        maxLine: MAX_LINE,
        preflight: { allowErrors: allowPreflightErrors },
        description: p.description ?? '',
        variants: (variants.data?.items ?? []).map((v) => ({ id: v.id, sku: v.sku, title: (v.productVariantOptions ?? []).map((o) => o.productOptionValueTitle).filter(Boolean).join(', ') || v.sku })),
        // A mockup view renders the mockup's template with the card preview in one smart object
        // and (for the demo card) the shopper's photo in another (the seeded mockup's rendering twin).
        mockups: [...new Map((mockups.data?.items ?? []).map((m) => [m.mockupId, m])).values()]
          .filter((m) => shop.views[m.mockupId])
          .map((m) => ({ id: m.mockupId, name: m.mockupName, ...shop.views[m.mockupId] })),
      },
    };
  }

  /**
   * The card's preflight report as typed, or null when the rendering API has no preflight to
   * give (an older platform answers 404): the back office still sees each item's own report.
   */
  async function preflightOf(shop, fields, photo) {
    const request = cardRequest(shop.template, fields, shop.photoLayer && photo ? { [shop.photoLayer]: photo } : {});
    const res = await fetch(`${api}/api/rendering/preflight`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) });
    if (!res.ok) return null;
    return res.json();
  }

  /** Why this order may not go ahead yet (`{status, body}` to answer), or null when it may. */
  async function preflightRefusal(shop, fields, photo, acceptWarnings) {
    const report = await preflightOf(shop, fields, photo);
    const verdict = orderVerdict(report, { allowErrors: allowPreflightErrors });
    if (verdict === 'block') {
      return { status: 422, body: { title: 'The card cannot be printed as it is', detail: 'Please fix the problems shown beside the preview before ordering.', problems: report.problems } };
    }
    if (verdict === 'confirm' && !acceptWarnings) {
      return { status: 409, body: { title: 'Please confirm', detail: 'Your card has warnings: check them beside the preview, then order again to confirm.', problems: report.problems } };
    }
    return null;
  }

  const readBody = (req, limit) =>
    new Promise((resolve, reject) => {
      const chunks = [];
      let size = 0;
      req.on('data', (c) => {
        size += c.length;
        if (size > limit) reject(Object.assign(new Error('too large'), { status: 413 }));
        else chunks.push(c);
      });
      req.on('end', () => resolve(Buffer.concat(chunks)));
      req.on('error', reject);
    });

  const json = (res, status, data) => res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(data));
  const file = (name, type) => readFileSync(path.join(here, name), 'utf8').replaceAll('{{API}}', api);

  /** Handles the shop's paths; false for anything else. */
  return async function handle(req, res, url) {
    const p = url.pathname;
    if (p === '/shop' || p === '/shop/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(file('shop.html'));
      return true;
    }
    if (p === '/shop/shop.js' || p === '/shop/order-input.mjs' || p === '/shop/preflight.mjs') {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(file(p.slice(6)));
      return true;
    }
    if (p === '/shop/shop.css') {
      res.writeHead(200, { 'content-type': 'text/css; charset=utf-8' }).end(file('shop.css'));
      return true;
    }
    if (p === '/shop/product.json') {
      const r = await product(productRef(url.searchParams.get('product')));
      json(res, r.status, r.data);
      return true;
    }
    if ((p === '/api/rendering/preview' || p === '/api/rendering/preflight') && req.method === 'POST') {
      // Same-origin for the page: the rendering API is passed through unchanged (no credentials).
      const body = await readBody(req, 256 * 1024);
      const started = performance.now();
      const upstream = await fetch(`${api}${p}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const text = await upstream.text();
      const verdict = upstream.headers.get('x-preflight');
      res.writeHead(upstream.status, {
        'content-type': upstream.headers.get('content-type') ?? 'application/json',
        'server-timing': `${upstream.headers.get('server-timing') ? upstream.headers.get('server-timing') + ', ' : ''}upstream;dur=${(performance.now() - started).toFixed(1)}`,
        ...(verdict ? { 'x-preflight': verdict } : {}),
      }).end(text);
      return true;
    }
    if (p === '/shop/photo' && req.method === 'POST') {
      const type = req.headers['content-type'] ?? '';
      if (!/^image\/(jpeg|png)$/.test(type)) return json(res, 415, { error: photoRefusal(415) }), true;
      const bytes = await readBody(req, 15 * 1024 * 1024).catch((err) => {
        if (err.status !== 413) throw err;
        return null;
      });
      if (!bytes) return json(res, 413, { error: photoRefusal(413) }), true;
      const form = new FormData();
      form.append('file', new Blob([bytes], { type }), type === 'image/png' ? 'photo.png' : 'photo.jpg');
      const up = await fetch(`${api}/api/resources/images?destination=demo-shop`, { method: 'POST', headers: { 'X-DynamicImageApiKey': apiKey }, body: form });
      if (!up.ok) return json(res, up.status, { error: photoRefusal(up.status) }), true;
      const data = await up.json();
      const name = Array.isArray(data) ? (data[0]?.name ?? data[0]) : data;
      return json(res, 201, { image: name }), true;
    }
    if (p === '/shop/order' && req.method === 'POST') {
      let input;
      try {
        input = JSON.parse((await readBody(req, 64 * 1024)).toString() || '{}');
      } catch {
        return json(res, 400, { title: 'Bad Request', detail: 'The order form could not be read. Please reload the page and try again.' }), true;
      }
      const { quantity, error } = orderQuantity(input.quantity);
      if (error) return json(res, 400, { title: 'Bad Request', detail: error }), true;
      const orderId = `shop-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
      // The template's variables under their own names, as the preview draws them: render tasks
      // fill a layer from the field of its name, and the back office lists the same fields.
      const reference = productRef(input.product);
      const shop = PRODUCTS[reference];
      const variables = await templateVariables(api, shop.template);
      const checked = orderFields(variables, input.fields);
      if (checked.error) return json(res, 400, { title: 'Bad Request', detail: checked.error }), true;
      const fields = checked.fields;
      // The same check the product page showed, made again here: the page's verdict is only advice.
      const photo = input.photo ? String(input.photo) : null;
      const refusal = await preflightRefusal(shop, fields, photo, input.acceptWarnings === true);
      if (refusal) return json(res, refusal.status, refusal.body), true;
      if (photo) fields[shop.photoLayer ?? 'Photo'] = photo;
      const firstLine = variables[0] ? (fields[variables[0].name] ?? '').split('\n')[0] : '';
      const created = await storefront('POST', `/projects/with-single-item?storefrontId=${STOREFRONT_ID}`, {
        ownerId: OWNER,
        productReference: reference,
        orderId,
        orderLineItemIndex: 0,
        orderName: `Demo shop ${orderId}`,
        customerName: firstLine || null,
        item: { quantity, sku: input.sku || null, fields },
      });
      if (created.status !== 201) return json(res, created.status, created.data), true;
      return json(res, 201, { id: created.data.id, orderUrl: `/shop/orders/${created.data.id}` }), true;
    }
    const order = p.match(/^\/shop\/orders\/(\d+)(\/status|\/files\/([A-Za-z0-9_-]+))?$/);
    if (order) {
      const id = order[1];
      if (!order[2]) {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(file('order.html').replaceAll('{{ID}}', id));
        return true;
      }
      if (order[2] === '/status') {
        const [project, results] = await Promise.all([storefront('GET', `/projects/${id}`), storefront('GET', `/projects/${id}/processing-results`)]);
        if (project.status !== 200) return json(res, project.status, project.data), true;
        const statuses = await storefront('GET', '/projects/statuses');
        const status = (statuses.data ?? []).find?.((s) => s.code === project.data.status);
        return json(res, 200, {
          id: project.data.id,
          orderName: project.data.orderName,
          status: status?.displayName ?? String(project.data.status),
          processingStatus: results.data?.status ?? project.data.processingStatus,
          statusDescription: results.data?.statusDescription ?? null,
          files: (results.data?.outputFileDetails ?? []).map((f) => ({ name: f.name, size: f.size, format: f.format, url: `/shop/orders/${id}/files/${f.artifactId}` })),
        }), true;
      }
      // A file of this order: fetched with the server's token, streamed to the shopper.
      const results = await storefront('GET', `/projects/${id}/processing-results`);
      const f = (results.data?.outputFileDetails ?? []).find((x) => x.artifactId === order[3]);
      if (!f) return json(res, 404, { error: 'No such file in this order.' }), true;
      const up = await fetch(f.url, { headers: f.anonymousAccess ? {} : { authorization: `Bearer ${await accessToken()}` } });
      res.writeHead(up.status, {
        'content-type': up.headers.get('content-type') ?? 'application/octet-stream',
        ...(up.ok ? { 'content-disposition': `attachment; filename="${f.name.replace(/[^\w. -]/g, '_')}"` } : {}),
      });
      res.end(Buffer.from(await up.arrayBuffer()));
      return true;
    }
    return false;
  };
}
