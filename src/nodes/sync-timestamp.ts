import { BadRequestException } from '@nestjs/common';

// The `timestamp` of an incremental sync, GET /nodes?timestamp= (docs/api-rules.md §6).

/**
 * A calendar date (or its year and month, or year), as `Date` reads it:
 * ordinal (2026-012) and basic (20260112) forms, which ISO 8601 allows,
 * `Date` misreads (as 1 December).
 */
const CALENDAR_DATE = /^\d{4}(?:-\d{2}){0,2}(?:T|$)/;

/** A time of day without a zone designator at its end. */
const ZONELESS_TIME = /T[^Z+-]*$/i;

/**
 * An ISO 8601 text as an instant, in UTC where it names no zone (as a date
 * alone already is; `Date` would read a time without one in the server's
 * zone); 400 for forms that name no instant (week dates such as 2024-W01-1)
 * or that `Date` misreads.
 */
export function instantOf(text: string): Date {
  const instant = new Date(ZONELESS_TIME.test(text) ? `${text}Z` : text);
  if (!CALENDAR_DATE.test(text) || Number.isNaN(instant.getTime())) {
    throw new BadRequestException(`timestamp '${text}' is not an ISO 8601 date-time (e.g. 2026-01-01T00:00:00Z)`);
  }
  return instant;
}
