/**
 * Every decimal field of the registry: served as a string with its declared scale (`"1234.50"`),
 * accepted as a JSON number or a string, and refused with the validator's messages when it has too
 * many decimal places, too many digits before the point, or is not a number at all.
 */
import { expect } from 'chai';
import type { DecimalField } from '../engine/declare/fields.js';
import { loadRegistry } from '../engine/registry/registry.js';
import { suite } from './support/hooks.js';
import { Samples } from './support/samples.js';

const registry = await loadRegistry();

/** The first of 1234.5, 1.5 and 1 that the field can hold. */
function fitting(spec: DecimalField): number {
  const fits = (v: number) =>
    String(Math.trunc(v)).length <= spec.digits - spec.decimals &&
    (v === Math.trunc(v) || spec.decimals > 0) &&
    v >= (spec.minimum ?? -Infinity) &&
    v <= (spec.maximum ?? Infinity);
  return [1234.5, 1.5, 1].find(fits)!;
}

describe('decimal fields (registry-driven)', () => {
  for (const resource of registry.resources) {
    const decimals = resource.fields.filter((f) => f.spec.type === 'decimal' && f.writable);
    if (!decimals.length) continue;

    describe(resource.path, () => {
      let record: Record<string, any>;
      before(async () => {
        record = await new Samples(suite().admin).create(suite().service.app.services.get(resource.key)!.resource);
      });

      for (const field of decimals) {
        const spec = field.spec as DecimalField;
        it(`${field.name} (${spec.digits}, ${spec.decimals})`, async () => {
          const { admin } = suite();
          const url = `${resource.path}/${record.id}`;
          const value = fitting(spec);
          const served = value.toFixed(spec.decimals);
          for (const sent of [value, String(value)]) {
            const res = await admin.patch(url, { [field.name]: sent });
            expect(res.status, `${JSON.stringify(sent)}: ${res.text}`).to.equal(200);
            expect(res.body[field.name]).to.equal(served);
          }
          const wholeDigits = spec.digits - spec.decimals;
          const refused: [unknown, string][] = [
            [`0.${'5'.repeat(spec.decimals + 1)}`, `Ensure that there are no more than ${spec.decimals} decimal places.`],
            [Number(`0.${'5'.repeat(spec.decimals + 1)}`), `Ensure that there are no more than ${spec.decimals} decimal places.`],
            ['9'.repeat(wholeDigits + 1), `Ensure that there are no more than ${wholeDigits} digits before the decimal point.`],
            [`${'9'.repeat(wholeDigits)}.${'5'.repeat(spec.decimals + 1)}`, `Ensure that there are no more than ${spec.digits} digits in total.`],
            ['abc', 'A valid number is required.'],
            ['1,5', 'A valid number is required.'],
          ];
          for (const [sent, message] of refused) {
            const res = await admin.patch(url, { [field.name]: sent });
            expect(res.status, JSON.stringify(sent)).to.equal(400);
            expect(res.body).to.deep.equal({ [field.name]: [message] });
          }
          expect((await admin.get(url)).body[field.name]).to.equal(served);
        });
      }
    });
  }
});
