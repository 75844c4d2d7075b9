// Identity's part of the admin panel, which src/admin composes and mounts at /admin: identity's
// sections (the dashboard, Settings > External apps, Users, Tenant), sign-out, and the shell every
// section of the panel renders in: who may enter (session, CSRF, security headers, error pages:
// guard.tsx), the page frame and form pieces (layout.tsx) and form reading (form-body.ts).
// Identity's own code: it imports nothing from the platform or from src/admin; other areas'
// settings reach the Tenant page as cards (TenantCard) and the navigation as PanelChrome.
export { appsRoutes } from './apps/routes';
export { usersRoutes } from './users/routes';
export { dashboard, tenantRoutes, type TenantCard } from './tenant';
export { adminErrorPage, adminHeaders, adminNotFound, done, panelChrome, render, requireAdmin, setFlash, signOut, type AdminContextOf, type AdminEnv } from './guard';
export { field, type FormBody } from './form-body';
export type { NavLink, PanelChrome } from './layout';
