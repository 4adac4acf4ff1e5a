import { FindingList, LISTED_PER_CODE, WHOLE_ARCHIVE } from './finding-list';
import { Finding, finding, summarizeFindings } from './findings';

const credentials = finding('credentials', '"nodes/config.py" line 3 holds an AWS access key id (its value is not shown)', 'nodes/config.py', 3);
const unsafe = finding('unsafe-path', '"../evil.py" has a ".." segment', '../evil.py');
const exec = finding('obfuscated-exec', '"loader.py" line 12 runs exec() on what base64.b64decode() decodes', 'loader.py', 12);
const mismatch = finding('version-mismatch', '"pyproject.toml" says version "1.2.0", but the version was published as "1.3.0"', 'pyproject.toml');
const notAPack = finding('not-a-pack', 'no __init__.py at the root of the archive or in a top-level folder');

describe('summarizeFindings', () => {
  it('gives the verdict of the most severe finding, then names the findings, most severe first', () => {
    expect(summarizeFindings([credentials, unsafe])).toBe('blocked: credentials in nodes/config.py line 3; unsafe-path ../evil.py');
    expect(summarizeFindings([exec])).toBe('awaiting review: obfuscated-exec in loader.py line 12');
    expect(summarizeFindings([mismatch, exec, notAPack])).toBe(
      'blocked: not-a-pack (no __init__.py at the root of the archive or in a top-level folder); obfuscated-exec in loader.py line 12; version-mismatch in pyproject.toml',
    );
    expect(summarizeFindings([mismatch])).toBe('passed with notes: version-mismatch in pyproject.toml');
    expect(summarizeFindings([])).toBe('passed: no findings');
  });

  it('names five findings at most, on one line', () => {
    const many = Array.from({ length: 8 }, (_, n) => finding('unsafe-path', 'x', `../evil\n${n}.py`));
    expect(summarizeFindings(many)).toBe(
      'blocked: unsafe-path ../evil\ufffd0.py; unsafe-path ../evil\ufffd1.py; unsafe-path ../evil\ufffd2.py; unsafe-path ../evil\ufffd3.py; unsafe-path ../evil\ufffd4.py; and 3 more',
    );
  });
});

describe('FindingList', () => {
  it('lists findings in archive order, whole-archive ones first', () => {
    const list = new FindingList();
    list.add(3, exec);
    list.add(1, unsafe);
    list.add(WHOLE_ARCHIVE, notAPack);
    list.add(1, credentials);
    expect(list.findings()).toEqual([notAPack, unsafe, credentials, exec]);
  });

  it(`lists ${LISTED_PER_CODE} findings of a code, then one counting the others`, () => {
    const list = new FindingList();
    const links: Finding[] = Array.from({ length: LISTED_PER_CODE + 5 }, (_, n) => finding('unsafe-path', `"link${n}" is a symbolic link`, `link${n}`));
    links.forEach((link, n) => list.add(n, link));
    list.add(30, exec);
    expect(list.findings()).toEqual([
      ...links.slice(0, LISTED_PER_CODE),
      exec,
      { code: 'unsafe-path', severity: 'block', message: '5 more unsafe-path findings, not listed' },
    ]);
  });
});
