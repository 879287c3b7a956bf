import { expect } from 'chai';
import { controlPlaneRefusal } from '../../src/api/control-plane.js';

describe("controlPlaneRefusal: what a chat turn's key may not reach on the service's own API", () => {
  const REFUSED = [
    '/plugins/ai-ops/api/chat/',
    '/plugins/ai-ops/api/chat',
    '/plugins/ai-ops/api/chat/jobs/',
    '/plugins/ai-ops/api/chat/jobs/abc/approvals/',
    '/plugins/ai-ops/api/chat/jobs/abc/events',
    '/plugins/ai-ops/api/chat/jobs/abc/elicitations/',
    '/plugins/ai-ops/api/chat/sessions/s1/',
    '/plugins/ai-ops/api/chat/models/',
    '/api/users/',
    '/api/users/tokens/',
    '/api/users/tokens/me/',
    '/api/users/tokens/1/',
    '/api/plugins/ai-ops/platform-token/',
    // Spellings a router or a proxy could read as the same path.
    '/API/Users/Tokens/',
    '/api//users/tokens/',
    '//api/users/tokens/',
    '/api/users/%74okens/',
    '/api/users/%2574okens/',
    '/plugins/ai-ops/api/%63hat/jobs/x/approvals/',
    '/plugins%2Fai-ops%2Fapi%2Fchat%2Fjobs/x/approvals/',
    '/Plugins/AI-Ops/API/Chat/',
  ];
  const ALLOWED = [
    '/api/extras/statuses/',
    '/api/plugins/ai-ops/llm-models/',
    '/api/plugins/ai-ops/mcp-servers/1/health-check/',
    '/api/plugins/ai-ops/kb/repos/',
    '/api/plugins/ai-ops/usage/',
    '/api/plugins/ai-ops/audit-log/',
    '/api/users-of-dcim/',
    '/api/dcim/chat/',
    '/plugins/ai-ops/api/chatter/',
    '/api/plugins/ai-ops/platform-tokens-report/',
    '/api/users%zz/',
  ];

  for (const path of REFUSED)
    it(`refuses ${path}, saying why`, () => expect(controlPlaneRefusal(path)).to.be.a('string').and.contain('control plane'));
  for (const path of ALLOWED) it(`lets ${path} through`, () => expect(controlPlaneRefusal(path)).to.equal(undefined));
});
