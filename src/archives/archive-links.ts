/** Where a reply points clients for a stored archive, by its sha256 (ArchivesService.linksFor). */
export type ArchiveLinks = (sha256: string) => string;
