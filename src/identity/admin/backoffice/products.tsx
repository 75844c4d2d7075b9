// Back office > Products (read-only for now): the catalogue with search, and a product's page with
// its variants (SKU, options, price, availability), design and mockup connections and the
// storefront references that name it. Editing stays with the back-office API for now.
//
//   GET /admin/products?search=      list
//   GET /admin/products/{id}         one product (current version)
import { Hono } from 'hono';
import { notFound } from '../../../errors';
import { PlatformError } from '../../../platform/core';
import { getProduct, listProducts, listVariants } from '../../../platform/catalogue/products';
import { referencesOfProduct } from '../../../platform/catalogue/references';
import { variantDesigns, variantMockups } from '../../../platform/catalogue/variant-assets';
import { render, type AdminContextOf, type AdminEnv } from '../guard';
import { tenantOf } from './context';

export const productsRoutes = new Hono<AdminEnv>();

productsRoutes.get('/', async (c) => {
  const search = (c.req.query('search') ?? '').trim().slice(0, 200);
  const list = await listProducts(tenantOf(c), { skip: 0, take: 100, sorting: [{ field: 'name', direction: 'ASC' }], search: search || undefined });
  return render(c, {
    title: 'Products',
    section: 'products',
    body: (
      <>
        <h1>Products</h1>
        <p class="lead">What the storefronts sell: options, variants, and the designs and mockups they are personalised with.</p>
        <form method="get" action="/admin/products" class="actions" role="search">
          <label for="product-search" class="sr-only">
            Search products
          </label>
          <input id="product-search" name="search" type="text" value={search} placeholder="Search by name" style="max-width:20rem" />
          <button type="submit">Search</button>
        </form>
        <p class="muted small" role="status">{`${list.total} product${list.total === 1 ? '' : 's'}`}</p>
        {list.items.length > 0 && (
          <div class="table-wrap">
            <table>
              <caption class="sr-only">Products</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col" class="opt">Description</th>
                  <th scope="col">Pipeline</th>
                </tr>
              </thead>
              <tbody>
                {list.items.map((p) => (
                  <tr>
                    <td>
                      <a href={`/admin/products/${p.id}`}>{p.name}</a>
                    </td>
                    <td class="opt">{p.description ?? ''}</td>
                    <td>{p.processingPipelineId != null ? <a href={`/admin/pipelines/${p.processingPipelineId}`}>{`#${p.processingPipelineId}`}</a> : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </>
    ),
  });
});

async function productOf(c: AdminContextOf) {
  const id = c.req.param('id') ?? '';
  try {
    return await getProduct(tenantOf(c), /^\d{1,15}$/.test(id) ? Number(id) : 0);
  } catch (e) {
    if (e instanceof PlatformError && e.status === 404) throw notFound('There is no such product in your tenant.');
    throw e;
  }
}

productsRoutes.get('/:id', async (c) => {
  const t = tenantOf(c);
  const p = await productOf(c);
  const [variants, designs, mockups, refs] = await Promise.all([
    listVariants(t, p.id, { skip: 0, take: 500 }),
    variantDesigns(t.env.DB, t.tenantId, p.productVersionId),
    variantMockups(t.env.DB, t.tenantId, p.productVersionId),
    referencesOfProduct(t.env.DB, t.tenantId, p.id),
  ]);
  const uniq = <T,>(xs: T[], key: (x: T) => string) => [...new Map(xs.map((x) => [key(x), x])).values()];
  return render(c, {
    title: p.name,
    section: 'products',
    body: (
      <>
        <p class="small">
          <a href="/admin/products">Products</a> /
        </p>
        <h1>{p.name}</h1>
        <p class="lead">{p.description ?? ''}</p>
        <section class="card" aria-labelledby="variants-h">
          <h2 id="variants-h">Variants</h2>
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">SKU</th>
                  <th scope="col">Options</th>
                  <th scope="col">Price</th>
                  <th scope="col">Available</th>
                </tr>
              </thead>
              <tbody>
                {variants.items.map((v) => (
                  <tr>
                    <td>
                      <code>{v.sku ?? '—'}</code>
                    </td>
                    <td>{(v.productVariantOptions ?? []).map((o) => `${o.productOptionTitle}: ${o.productOptionValueTitle}`).join(', ')}</td>
                    <td>{v.price ?? '—'}</td>
                    <td>{v.isAvailable ? <span class="badge ok">Yes</span> : <span class="badge off">No</span>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
        <section class="card" aria-labelledby="connections-h">
          <h2 id="connections-h">Designs and mockups</h2>
          <dl class="props">
            <dt>Designs</dt>
            <dd>{uniq(designs, (d) => d.designId).map((d) => `${d.designName ?? d.designId} (${d.designGroup ?? 'no group'})`).join(', ') || '—'}</dd>
            <dt>Mockups</dt>
            <dd>{uniq(mockups, (m) => m.mockupId).map((m) => m.mockupName ?? m.mockupId).join(', ') || '—'}</dd>
            <dt>Pipeline</dt>
            <dd>{p.processingPipelineId != null ? <a href={`/admin/pipelines/${p.processingPipelineId}`}>{`#${p.processingPipelineId}`}</a> : '—'}</dd>
          </dl>
        </section>
        <section class="card" aria-labelledby="refs-h">
          <h2 id="refs-h">Storefront references</h2>
          {refs.length === 0 ? (
            <p class="muted">No storefront names this product.</p>
          ) : (
            <ul class="plain">
              {refs.map((r) => (
                <li>
                  <code>{r.reference}</code> <span class="muted small">{`on ${r.storefront} (storefront ${r.storefrontId})`}</span>
                </li>
              ))}
            </ul>
          )}
        </section>
      </>
    ),
  });
});
