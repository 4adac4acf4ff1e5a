import { FINDING_CODES, Finding, FindingCode, finding } from './findings';

/** How many findings of one code are listed; the others are counted in one more finding. */
export const LISTED_PER_CODE = 20;

/** Where a finding about the archive as a whole goes: before those about its entries. */
export const WHOLE_ARCHIVE = -1;

/**
 * The findings of one archive's checks, in archive order, at most LISTED_PER_CODE of each code, so
 * that a hostile archive (a thousand secrets, twenty thousand symlinks) cannot make the list grow.
 */
export class FindingList {
  private readonly listed: { at: number; finding: Finding }[] = [];
  private readonly counts = new Map<FindingCode, number>();

  /** `at`: the index of the entry the finding is about, or WHOLE_ARCHIVE. */
  add(at: number, found: Finding): void {
    const count = (this.counts.get(found.code) ?? 0) + 1;
    this.counts.set(found.code, count);
    if (count <= LISTED_PER_CODE) this.listed.push({ at, finding: found });
  }

  /** The findings in archive order (the checks add them in two passes), then one per code counting those not listed. */
  findings(): Finding[] {
    const listed = [...this.listed].sort((a, b) => a.at - b.at).map(({ finding: found }) => found);
    const counted = FINDING_CODES.flatMap((code) => {
      const more = (this.counts.get(code) ?? 0) - LISTED_PER_CODE;
      return more > 0 ? [finding(code, `${more} more ${code} findings, not listed`)] : [];
    });
    return [...listed, ...counted];
  }
}
