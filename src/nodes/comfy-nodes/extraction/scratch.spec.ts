import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeZip } from '../../../../test/support/zip';
import { extractNodeClasses } from './extract-node-classes';
it('pathological', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'x-'));
  const n = 1440;
  let deep = '';
  for (let i = 0; i < n; i++) deep += ' '.repeat(i) + 'if x:\n';
  deep += ' '.repeat(n) + 'NODE_CLASS_MAPPINGS["Deep"] = A\n';
  const brackets = 'NODE_CLASS_MAPPINGS["B"] = ' + '('.repeat(400000) + 'A' + ')'.repeat(400000) + '\n';
  const unbalanced = 'NODE_CLASS_MAPPINGS["U"] = ' + '['.repeat(900000) + '\n';
  const path = join(dir, 'a.zip');
  writeFileSync(path, makeZip({ 'deep.py': deep, 'brackets.py': brackets, 'unbalanced.py': unbalanced }));
  console.log(deep.length, brackets.length);
  const t = performance.now();
  console.log(JSON.stringify(await extractNodeClasses(path)), performance.now() - t);
});
