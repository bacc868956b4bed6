/**
 * The allocation overlap rule: bookings of one resource must not overlap ([start, end), so
 * touching periods are fine), other resources are unaffected, a PATCH into an overlap is refused
 * and leaves the booking as it was, and two overlapping creates racing each other cannot both win.
 */
import { expect } from 'chai';
import { created } from './support/fixtures.js';
import { suite } from './support/hooks.js';

const PATH = '/api/resources/allocations';
const at = (hour: number) => `2026-05-04T${String(hour).padStart(2, '0')}:00:00.000Z`;

describe('allocation overlap rule', () => {
  let room: any;
  let booked: any;
  const resource = (title: string) => created(suite().admin, '/api/resources/resources', { title, kind: 'room', capacity: 8 });
  const book = (resourceId: number, start: number, end: number) =>
    suite().admin.post(PATH, { title: `${start}-${end}`, resource_id: resourceId, start: at(start), end: at(end) });
  const overlapMessage = (id: number) => ({ start: [`This period overlaps allocations ${id} of the same resource.`] });

  before(async () => {
    room = await resource('Meeting room');
    const res = await book(room.id, 10, 12);
    expect(res.status, res.text).to.equal(201);
    booked = res.body;
  });

  const overlapping: [string, number, number][] = [
    ['the same period', 10, 12],
    ['a period starting inside', 11, 13],
    ['a period ending inside', 9, 11],
    ['a period inside', 10, 11],
    ['a period around', 9, 13],
  ];
  for (const [name, start, end] of overlapping) {
    it(`refuses ${name} with 400 under start`, async () => {
      const res = await book(room.id, start, end);
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.equal(overlapMessage(booked.id));
    });
  }

  it('accepts periods that only touch it, before and after', async () => {
    const other = await resource('Touching room');
    const middle = (await book(other.id, 10, 12)).body;
    expect((await book(other.id, 12, 13)).status).to.equal(201);
    expect((await book(other.id, 9, 10)).status).to.equal(201);
    expect((await suite().admin.get(`${PATH}?resource=${other.id}`)).body.map((a: any) => a.id)).to.include(middle.id).and.have.length(3);
  });

  it('accepts the same period on another resource', async () => {
    const other = await resource('Second room');
    expect((await book(other.id, 10, 12)).status).to.equal(201);
  });

  it('refuses a PATCH that moves a booking into an overlap, and keeps it as it was', async () => {
    const later = (await book(room.id, 14, 15)).body;
    const res = await suite().admin.patch(`${PATH}/${later.id}`, { start: at(11) });
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.equal(overlapMessage(booked.id));
    expect((await suite().admin.get(`${PATH}/${later.id}`)).body).to.deep.equal(later);
    expect((await suite().admin.patch(`${PATH}/${later.id}`, { start: at(12) })).status, 'touching is fine').to.equal(200);
  });

  it('refuses moving a booking to a resource where it overlaps', async () => {
    const other = await resource('Third room');
    const there = (await book(other.id, 10, 12)).body;
    const res = await suite().admin.patch(`${PATH}/${there.id}`, { resource_id: room.id });
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.equal(overlapMessage(booked.id));
  });

  it('lets only one of two overlapping creates win when they race', async () => {
    // a race is not certain to interleave: several rounds make a lost update very likely to show
    for (let round = 0; round < 5; round++) {
      const contested = await resource(`Contested room ${round}`);
      const replies = await Promise.all([book(contested.id, 8, 10), book(contested.id, 9, 11)]);
      expect(replies.map((r) => r.status).sort(), `round ${round}`).to.deep.equal([201, 400]);
      const winner = replies.find((r) => r.status === 201)!.body;
      expect(replies.find((r) => r.status === 400)!.body).to.deep.equal(overlapMessage(winner.id));
      expect((await suite().admin.get(`${PATH}?resource=${contested.id}`)).body).to.deep.equal([winner]);
    }
  });
});
