import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultRunTraceDirectory, strataStateDirectory } from './trace-directory.js';

test('the default trace directory is in the per-user state directory of each platform', () => {
  assert.equal(defaultRunTraceDirectory({ env: { XDG_STATE_HOME: '/xdg/state' }, platform: 'linux', home: '/home/u' }), '/xdg/state/strata/runs');
  assert.equal(defaultRunTraceDirectory({ env: {}, platform: 'linux', home: '/home/u' }), '/home/u/.local/state/strata/runs');
  // A relative XDG_STATE_HOME is ignored, as the XDG spec says.
  assert.equal(defaultRunTraceDirectory({ env: { XDG_STATE_HOME: 'state' }, platform: 'linux', home: '/home/u' }), '/home/u/.local/state/strata/runs');
  assert.equal(defaultRunTraceDirectory({ env: {}, platform: 'darwin', home: '/Users/u' }), '/Users/u/Library/Application Support/strata/runs');
  assert.equal(defaultRunTraceDirectory({ env: { LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' }, platform: 'win32', home: 'C:\\Users\\u' }), 'C:\\Users\\u\\AppData\\Local\\strata\\runs');
  assert.equal(strataStateDirectory({ env: {}, platform: 'win32', home: 'C:\\Users\\u' }), 'C:\\Users\\u\\AppData\\Local\\strata');
  assert.equal(strataStateDirectory({ env: undefined as never, platform: 'linux', home: '/home/u' }), '/home/u/.local/state/strata');
});
