import { Finding, finding } from './findings';

const INIT = '__init__.py';
const PYPROJECT = 'pyproject.toml';

/** How many of the top-level folders holding an __init__.py the not-a-pack finding names. */
const NAMED_FOLDERS = 3;

/**
 * Where the pack is in the archive, from its entries' paths: at the root (an `__init__.py` there), or
 * in the one top-level folder that holds an `__init__.py` (as a GitHub source zip has it).
 */
export class PackLayout {
  private initAtRoot = false;
  private readonly initFolders = new Set<string>();
  private readonly pyprojects = new Set<string>();

  add(name: string): void {
    const parts = name.split('/');
    if (parts.length > 2) return;
    const [first, second] = parts;
    if (parts.length === 1 && first === INIT) this.initAtRoot = true;
    if (parts.length === 2 && second === INIT) this.initFolders.add(first);
    if (parts[parts.length - 1] === PYPROJECT) this.pyprojects.add(name);
  }

  /** The pack's folder: '' for the root, `folder/`, or undefined when the archive is not a pack. */
  packFolder(): string | undefined {
    if (this.initAtRoot) return '';
    return this.initFolders.size === 1 ? `${[...this.initFolders][0]}/` : undefined;
  }

  /** The not-a-pack finding, when there is no pack folder. */
  notAPack(): Finding | undefined {
    if (this.packFolder() !== undefined) return undefined;
    if (this.initFolders.size === 0) return finding('not-a-pack', `no ${INIT} at the root of the archive or in a top-level folder`);
    const folders = [...this.initFolders].slice(0, NAMED_FOLDERS).map((folder) => `${folder}/`);
    const more = this.initFolders.size > NAMED_FOLDERS ? ` and ${this.initFolders.size - NAMED_FOLDERS} more` : '';
    return finding('not-a-pack', `no ${INIT} at the root of the archive, and one in each of ${this.initFolders.size} top-level folders (${folders.join(', ')}${more}) rather than in a single one`);
  }

  /** The pack's pyproject.toml: in the pack's folder, else at the root; undefined when there is none. */
  pyproject(): string | undefined {
    const folder = this.packFolder();
    const candidates = folder === undefined ? [PYPROJECT] : [`${folder}${PYPROJECT}`, PYPROJECT];
    return candidates.find((path) => this.pyprojects.has(path));
  }
}
