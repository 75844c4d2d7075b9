/** How long a Temporary artifact lives before the hourly sweep removes it (contract, "Artifacts"). */
export const TEMPORARY_TTL_MS = 24 * 60 * 60 * 1000;
