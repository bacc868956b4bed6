/**
 * A suite that needs something of the machine (servers of its own, a PostgreSQL whose processes it
 * can read): run where it is there; pending, with the reason in its title, where it is not; under
 * CI=true a failure instead, so CI never passes such a suite by leaving it out.
 */
import { expect } from 'chai';

/** `unavailable`: why the machine cannot run the suite, undefined when it can; `needs`: what it needs, for the pending title. */
export function describeWhereAvailable(title: string, needs: string, unavailable: string | undefined, body: (this: Mocha.Suite) => void): void {
  if (!unavailable) describe(title, body);
  else if (process.env.CI === 'true') describe(title, () => it(`has ${needs}`, () => expect.fail(`CI runs this suite, but ${unavailable}`)));
  else describe.skip(`${title} (needs ${needs}: ${unavailable})`, body);
}
