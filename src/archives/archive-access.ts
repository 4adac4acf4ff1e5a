import { Principal } from '../auth/principal';

/**
 * Who may download a stored archive: `public` anyone (and any cache, for
 * good), `caller` this caller only (never cached), `none` no one (404).
 */
export type ArchiveAccess = 'public' | 'caller' | 'none';

/**
 * What a feature that stores archives says of those it references. An
 * archive is released when some policy releases it: one that no policy
 * releases is not served, so stored bytes nobody has approved (an archive
 * its checks blocked, say) are never public by default.
 */
export interface ArchiveAccessPolicy {
  accessTo(sha256: string, caller: Principal | undefined): Promise<ArchiveAccess>;
}
