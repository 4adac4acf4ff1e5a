/** What the checks of a node-pack archive can find (CONTRACT §10), in the contract's order. */
export const FINDING_CODES = ['unsafe-path', 'zip-bomb', 'not-a-pack', 'credentials', 'obfuscated-exec', 'native-binary', 'version-mismatch', 'no-node-classes'] as const;
export type FindingCode = (typeof FINDING_CODES)[number];

/** `block`: flagged for good; `review`: flagged until an admin decides; `info`: told, the version stays active. */
export type FindingSeverity = 'block' | 'review' | 'info';

export const SEVERITY_OF: Record<FindingCode, FindingSeverity> = {
  'unsafe-path': 'block',
  'zip-bomb': 'block',
  'not-a-pack': 'block',
  credentials: 'block',
  'obfuscated-exec': 'review',
  'native-binary': 'review',
  'version-mismatch': 'info',
  'no-node-classes': 'info',
};

/** One finding; `message` is a sentence that stands alone (it names the file and line too, when there are some). */
export interface Finding {
  code: FindingCode;
  severity: FindingSeverity;
  message: string;
  /** The entry's path in the archive, when the finding is about one. */
  file?: string;
  /** 1-based, when the finding is about a line of a text file. */
  line?: number;
}

/** A finding of `code`, with the code's severity. */
export function finding(code: FindingCode, message: string, file?: string, line?: number): Finding {
  const found: Finding = { code, severity: SEVERITY_OF[code], message };
  if (file !== undefined) found.file = file;
  if (line !== undefined) found.line = line;
  return found;
}

/** How much of a name or value from the archive a message quotes. */
const QUOTED_CHARS = 200;

/**
 * A name or value from the archive as messages and the summary show it: on one line, its control
 * characters (a name may hold line breaks) as U+FFFD, cut past QUOTED_CHARS.
 */
function shown(text: string): string {
  const cut = text.length > QUOTED_CHARS ? `${text.slice(0, QUOTED_CHARS)}…` : text;
  // eslint-disable-next-line no-control-regex -- control characters are what this replaces
  return cut.replace(/[\u0000-\u001f\u007f]/g, '\ufffd');
}

/** A name or value from the archive, quoted in a message. */
export const quote = (text: string): string => `"${shown(text)}"`;

const SEVERITIES: readonly FindingSeverity[] = ['block', 'review', 'info'];
const VERDICT: Record<FindingSeverity, string> = { block: 'blocked', review: 'awaiting review', info: 'passed with notes' };

/** How many findings the summary names; it counts the rest. */
const NAMED = 5;

/** Codes whose finding is about an entry as a whole (named after the code), rather than something in it ("in" the file). */
const ABOUT_THE_ENTRY = new Set<FindingCode>(['unsafe-path', 'zip-bomb', 'native-binary']);

function phrase({ code, message, file, line }: Finding): string {
  if (file === undefined) return `${code} (${shown(message)})`;
  const where = line === undefined ? shown(file) : `${shown(file)} line ${line}`;
  return ABOUT_THE_ENTRY.has(code) ? `${code} ${where}` : `${code} in ${where}`;
}

/**
 * The one-line human summary for a version's `status_reason`: the verdict the most severe finding
 * gives, then the first findings, most severe first (archive order within a severity), e.g.
 * "blocked: credentials in nodes/config.py line 3; unsafe-path ../evil.py" or "awaiting review:
 * obfuscated-exec in loader.py line 12"; "passed: no findings" when there are none.
 */
export function summarizeFindings(findings: readonly Finding[]): string {
  const ordered = SEVERITIES.flatMap((severity) => findings.filter((f) => f.severity === severity));
  if (ordered.length === 0) return 'passed: no findings';
  const named = ordered.slice(0, NAMED).map(phrase);
  const more = ordered.length - named.length;
  return `${VERDICT[ordered[0].severity]}: ${named.join('; ')}${more > 0 ? `; and ${more} more` : ''}`;
}
