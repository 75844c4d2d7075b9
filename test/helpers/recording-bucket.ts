/** An R2 bucket that records which keys were read (`get`), so tests can pin what a render touches. */
export function recording(bucket: R2Bucket): { bucket: R2Bucket; reads: string[] } {
  const reads: string[] = [];
  const wrapped = new Proxy(bucket, {
    get(target, prop) {
      if (prop === 'get') {
        return (key: string, ...rest: unknown[]) => {
          reads.push(key);
          return (target.get as (...a: unknown[]) => unknown)(key, ...rest);
        };
      }
      const v = Reflect.get(target, prop);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return { bucket: wrapped, reads };
}
