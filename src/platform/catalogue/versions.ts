/**
 * Options as given → the rows of a product version and its variants (the store writes them,
 * store/versions.ts). Variants are the Cartesian product of the option values (one variant
 * without options).
 */
import { ValidationError, type ErrorsByPath } from '../core';
import { CATALOGUE_LIMITS, type OptionInput } from './schemas';
import type { PreparedOptions } from './store/versions';

const uid = (): string => {
  const bytes = crypto.getRandomValues(new Uint8Array(9));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_');
};

/** Options as given (PUT options, create) → rows of a version and its variants. 400 on clashes. */
export function prepareOptions(input: OptionInput[] | null | undefined, at = 'options'): PreparedOptions {
  const errors: ErrorsByPath = {};
  const out: PreparedOptions = { options: [], values: [], variants: [] };
  const seen = new Set<string>();
  const taken = (u: string, path: string) => {
    if (seen.has(u)) (errors[path] ??= []).push(`The uid "${u}" is used twice.`);
    seen.add(u);
  };
  (input ?? []).forEach((o, i) => {
    const optionUid = o.uid ?? uid();
    taken(optionUid, `${at}[${i}].uid`);
    out.options.push({
      uid: optionUid,
      title: o.title,
      type: o.type ?? 'Simple',
      traits: o.traits ?? [],
      sortIndex: i,
      tag: o.tag ?? null,
      useForDesignBinding: o.useForDesignBinding ?? true,
      useForMockupBinding: o.useForMockupBinding ?? true,
    });
    const anyDefault = o.values.some((v) => v.isDefault);
    o.values.forEach((v, j) => {
      const valueUid = v.uid ?? uid();
      taken(valueUid, `${at}[${i}].values[${j}].uid`);
      out.values.push({
        optionUid,
        uid: valueUid,
        title: v.title,
        value: v.value ?? null,
        description: v.description ?? null,
        sortIndex: j,
        isDefault: anyDefault ? Boolean(v.isDefault) : j === 0,
        tag: v.tag ?? null,
      });
    });
  });
  const count = out.options.reduce((n, o) => n * out.values.filter((v) => v.optionUid === o.uid).length, 1);
  if (count > CATALOGUE_LIMITS.variants) {
    (errors[at] ??= []).push(`These options make ${count} variants; a product has at most ${CATALOGUE_LIMITS.variants}.`);
  }
  if (Object.keys(errors).length) throw new ValidationError(errors);

  let combos: string[][] = [[]];
  for (const o of out.options) {
    const values = out.values.filter((v) => v.optionUid === o.uid).map((v) => v.uid);
    combos = combos.flatMap((c) => values.map((v) => [...c, v]));
  }
  out.variants = combos.map((c, i) => ({ key: JSON.stringify([...c].sort()), uid: uid(), sortIndex: i }));
  return out;
}
