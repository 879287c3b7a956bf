import type { WritePlan } from '../../src/write-plans/write-plan.js';

/** The plan of deleting one device, leaf-1 (as read at `t1`). */
export const DELETE_PLAN: WritePlan = {
  method: 'DELETE',
  path: '/api/dcim/devices/1/',
  operation: 'DELETE /api/dcim/devices/{id}/',
  summary: 'Delete device leaf-1',
  objects: [{ id: '1', display: 'leaf-1', path: '/api/dcim/devices/1/', last_updated: 't1', effect: 'delete', changes: [] }],
  count: 1,
  errors: [],
  notes: [],
};
