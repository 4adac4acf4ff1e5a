import { mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { makeZip, unreadableZips } from '../../../../test/support/zip';
import { ExtractionLimits, extractNodeClasses } from './extract-node-classes';

/** A pack as ComfyUI-Manager installs it: mappings in __init__.py, classes in a sub-module. */
const INIT = `from .nodes.image import ImageBlend, ImageInvert
from .nodes import masks

NODE_CLASS_MAPPINGS = {
    "ImageBlend+": ImageBlend,
    "ImageInvert+": ImageInvert,
    "MaskGrow+": masks.MaskGrow,
}

NODE_DISPLAY_NAME_MAPPINGS = {
    "ImageBlend+": "🔧 Image Blend",
    "MaskGrow+": "🔧 Mask Grow",
}
`;

const IMAGE_NODES = `import torch


class ImageBlend:
    """Blends two images."""

    @classmethod
    def INPUT_TYPES(cls):
        return {"required": {"image1": ("IMAGE",), "image2": ("IMAGE",), "factor": ("FLOAT", {"default": 0.5})}}

    RETURN_TYPES = ("IMAGE",)
    FUNCTION = "blend"
    CATEGORY = "essentials/image"

    def blend(self, image1, image2, factor):
        return (image1 * (1 - factor) + image2 * factor,)


class ImageInvert:
    DESCRIPTION = "Inverts the colours of an image."
    RETURN_TYPES = ("IMAGE", "MASK")
    RETURN_NAMES = ("image", "mask")
    OUTPUT_IS_LIST = (True, False)
    FUNCTION = "invert"
    CATEGORY = "essentials/image"
    DEPRECATED = True
    EXPERIMENTAL = False

    def invert(self, image):
        return ([1.0 - image], image[..., 0])
`;

const MASK_NODES = `class MaskGrow:
    RETURN_TYPES = ["MASK"]
    FUNCTION = "grow"
    CATEGORY = "essentials/mask"
    EXPERIMENTAL = True
`;

/** How many of this process's file descriptors are open on `path` (Linux). */
const openOn = (path: string) =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path;
    } catch {
      return false; // closed meanwhile (the descriptor readdir itself used)
    }
  }).length;

describe('extractNodeClasses', () => {
  let dir: string;
  let written = 0;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'node-classes-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const archive = (bytes: Uint8Array): string => {
    const path = join(dir, `${(written += 1)}.zip`);
    writeFileSync(path, bytes);
    return path;
  };
  const extract = (files: Record<string, string>, limits?: Partial<ExtractionLimits>) => extractNodeClasses(archive(makeZip(files)), limits);

  it('reads literal mappings in __init__.py, display names, and the classes’ attributes in sub-modules', async () => {
    const path = archive(makeZip({ 'essentials/__init__.py': INIT, 'essentials/nodes/image.py': IMAGE_NODES, 'essentials/nodes/masks.py': MASK_NODES }));
    expect(await extractNodeClasses(path)).toStrictEqual({
      status: 'success',
      classes: [
        { name: 'ImageBlend+', category: 'essentials/image', function: 'blend', returnTypes: ['IMAGE'], description: '🔧 Image Blend' },
        {
          name: 'ImageInvert+',
          category: 'essentials/image',
          function: 'invert',
          returnTypes: ['IMAGE', 'MASK'],
          returnNames: ['image', 'mask'],
          outputIsList: [true, false],
          deprecated: true,
          experimental: false,
          description: 'Inverts the colours of an image.',
        },
        { name: 'MaskGrow+', category: 'essentials/mask', function: 'grow', returnTypes: ['MASK'], experimental: true, description: '🔧 Mask Grow' },
      ],
    });
    expect(openOn(path)).toBe(0);
  });

  it('reads .update({...}), .update(Key=Class), item assignments and annotated assignments, the last value of a key winning', async () => {
    const result = await extract({
      'pack/__init__.py': `from .nodes import *
NODE_CLASS_MAPPINGS: dict[str, type] = {"A": First}
NODE_CLASS_MAPPINGS.update({"B": Second})
NODE_CLASS_MAPPINGS.update(C=Third)
NODE_CLASS_MAPPINGS["D"] = Fourth
NODE_CLASS_MAPPINGS["A"] = Fourth
NODE_DISPLAY_NAME_MAPPINGS = {}
NODE_DISPLAY_NAME_MAPPINGS.update({"B": "Bee"}, C="Sea")
NODE_DISPLAY_NAME_MAPPINGS["D"] = 'D' "ee"
`,
      'pack/nodes.py': ['First', 'Second', 'Third', 'Fourth'].map((name) => `class ${name}:\n    CATEGORY = "${name.toLowerCase()}"\n`).join('\n'),
    });
    expect(result).toStrictEqual({
      status: 'success',
      classes: [
        { name: 'A', category: 'fourth' },
        { name: 'B', category: 'second', description: 'Bee' },
        { name: 'C', category: 'third', description: 'Sea' },
        { name: 'D', category: 'fourth', description: 'Dee' },
      ],
    });
  });

  it('skips what is not literal (comprehensions, calls, **spreads, computed keys), keeps what is, and says where', async () => {
    const result = await extract({
      'pack/__init__.py': `from . import a, b
NODE_CLASS_MAPPINGS = {
    "Literal": Literal,
    **a.NODE_CLASS_MAPPINGS,
    f"Prefixed{b.SUFFIX}": Other,
    "Made": make_node("Made"),
}
NODE_CLASS_MAPPINGS.update({name: cls for name, cls in b.NODES.items()})
NODE_CLASS_MAPPINGS.update(load_more())
NODE_CLASS_MAPPINGS[PREFIX + "Key"] = Other
NODE_DISPLAY_NAME_MAPPINGS = {"Literal": "A literal", "Made": "Made " + VERSION}
`,
      'pack/nodes.py': 'class Literal:\n    FUNCTION = "run"\n',
    });
    expect(result).toStrictEqual({
      status: 'success',
      // A literal key names a node whatever its value is; only a class it names has attributes to read.
      classes: [
        { name: 'Literal', function: 'run', description: 'A literal' },
        { name: 'Made' },
      ],
      reason:
        'NODE_CLASS_MAPPINGS entries not literal, skipped: pack/__init__.py line 4, pack/__init__.py line 5, pack/__init__.py line 8, pack/__init__.py line 9, pack/__init__.py line 10; ' +
        'NODE_DISPLAY_NAME_MAPPINGS entries not literal, skipped: pack/__init__.py line 11',
    });
  });

  it('reads mappings in if/try blocks at module level, and decorated classes, but not what functions would do', async () => {
    const result = await extract({
      'pack/__init__.py': `import sys
NODE_CLASS_MAPPINGS = {}
try:
    from .video import VideoNode
    NODE_CLASS_MAPPINGS["VideoNode"] = VideoNode
except ImportError:
    print("video nodes need opencv", file=sys.stderr)
else:
    NODE_CLASS_MAPPINGS.update(Other=VideoNode)
if sys.platform == "darwin":
    NODE_CLASS_MAPPINGS["MetalNode"] = MetalNode

def register():
    NODE_CLASS_MAPPINGS["Never"] = VideoNode
`,
      'pack/video.py': `@register_node
class VideoNode:
    CATEGORY = "video"

    def run(self):
        class Inner:
            CATEGORY = "not read"
        return Inner

class MetalNode:
    class Options:
        CATEGORY = "nested, not read"
`,
    });
    expect(result).toStrictEqual({
      status: 'success',
      classes: [{ name: 'MetalNode' }, { name: 'Other', category: 'video' }, { name: 'VideoNode', category: 'video' }],
    });
  });

  it('reads what it can of a module with a syntax error, and names it', async () => {
    const result = await extract({
      'pack/__init__.py': 'from .nodes import Good\nNODE_CLASS_MAPPINGS = {"Good": Good}\n',
      'pack/broken.py': 'NODE_CLASS_MAPPINGS.update({"Before": Good})\nNODE_CLASS_MAPPINGS["Broken"] = = Good\nNODE_CLASS_MAPPINGS.update({"After": Good})\n',
      'pack/nodes.py': 'class Good:\n    CATEGORY = "good"\n',
    });
    expect(result).toStrictEqual({
      status: 'success',
      classes: [
        { name: 'After', category: 'good' },
        { name: 'Before', category: 'good' },
        { name: 'Good', category: 'good' },
      ],
      reason: 'syntax errors, read in part: pack/broken.py line 2',
    });
  });

  it('fails, without throwing, when no mapping has a literal key', async () => {
    expect(await extract({ 'pack/__init__.py': 'NODE_CLASS_MAPPINGS = {k: v for k, v in load()}\n', 'pack/nodes.py': 'class A:\n    CATEGORY = "a"\n' })).toStrictEqual({
      status: 'failed',
      classes: [],
      reason: 'no NODE_CLASS_MAPPINGS with literal keys found; NODE_CLASS_MAPPINGS entries not literal, skipped: pack/__init__.py line 1',
    });
    expect(await extract({ 'pack/__init__.py': 'print("hello")\n' })).toStrictEqual({ status: 'failed', classes: [], reason: 'no NODE_CLASS_MAPPINGS with literal keys found' });
    expect(await extract({ 'README.md': '# NODE_CLASS_MAPPINGS = {"A": A}\n' })).toStrictEqual({ status: 'failed', classes: [], reason: 'no .py file read' });
  });

  it.each(Object.entries({ ...unreadableZips(), 'a text file': Buffer.from('NODE_CLASS_MAPPINGS = {"A": A}\n') }))(
    'fails, without throwing, on %s, and closes the file',
    async (_, bytes) => {
      const path = archive(bytes);
      const result = await extractNodeClasses(path);
      expect(result).toMatchObject({ status: 'failed', classes: [] });
      expect(result.reason).toMatch(/^no (\.py file read|NODE_CLASS_MAPPINGS with literal keys found); (the archive is not a readable zip file|not readable): \S/);
      expect(openOn(path)).toBe(0);
    },
  );

  it('leaves files over the limits unread and names them', async () => {
    const mapping = (key: string) => `NODE_CLASS_MAPPINGS = {"${key}": Node}\n`;
    const files = { 'p/a.py': mapping('A'), 'p/big.py': mapping('Big') + '#'.repeat(200), 'p/b.py': mapping('B'), 'p/c.py': mapping('C') };
    expect(await extract(files, { maxFileBytes: 100 })).toStrictEqual({
      status: 'success',
      classes: [{ name: 'A' }, { name: 'B' }, { name: 'C' }],
      reason: 'not read (over 100 bytes): p/big.py',
    });
    expect(await extract(files, { maxFileBytes: 100, maxFiles: 2 })).toStrictEqual({
      status: 'success',
      classes: [{ name: 'A' }, { name: 'B' }],
      reason: 'not read (over 100 bytes): p/big.py; not read (over 2 .py files): p/c.py',
    });
    expect(await extract(files, { maxTotalBytes: 70 })).toStrictEqual({
      status: 'success',
      classes: [{ name: 'A' }, { name: 'B' }],
      reason: 'not read (over 70 bytes of Python in all): p/big.py, p/c.py',
    });
  });

  it('leaves unparsed a module that would break the parser, and reads the others', async () => {
    const deep = Array.from({ length: 600 }, (_, level) => `${' '.repeat(level)}if x:\n`).join('') + `${' '.repeat(600)}NODE_CLASS_MAPPINGS["Deep"] = A\n`;
    expect(await extract({ 'p/deep.py': deep, 'p/nodes.py': 'NODE_CLASS_MAPPINGS = {"A": A}\nclass A:\n    CATEGORY = "a"\n' })).toStrictEqual({
      status: 'success',
      classes: [{ name: 'A', category: 'a' }],
      reason: 'not parsed (a line indented 500 columns or more): p/deep.py',
    });
  });

  it('reads only .py files, not bytecode caches, macOS resource forks or unsafe paths', async () => {
    const mapping = 'NODE_CLASS_MAPPINGS = {"A": A}\n';
    expect(
      await extract({
        'p/': '',
        'p/README.md': mapping,
        'p/__init__.pyc': mapping,
        'p/__pycache__/x.py': mapping,
        '__MACOSX/p/._x.py': '\u0000\u0005\u0016\u0007',
        '../outside.py': mapping,
      }),
    ).toStrictEqual({ status: 'failed', classes: [], reason: 'no .py file read; unsafe names, not read: ../outside.py' });
  });

  it('reads deflated entries, and keeps the first of two classes of the same name in archive order', async () => {
    const deflated = zipSync({
      'p/__init__.py': strToU8('NODE_CLASS_MAPPINGS = {"Twin": Twin}\n'),
      'p/first.py': strToU8('class Twin:\n    CATEGORY = "first"\n'),
      'p/second.py': strToU8('class Twin:\n    CATEGORY = "second"\n'),
    });
    expect(await extractNodeClasses(archive(deflated))).toStrictEqual({ status: 'success', classes: [{ name: 'Twin', category: 'first' }] });
  });

  it('leaves out a class whose name, and an attribute whose text, holds a NUL or an unpaired surrogate, and says so', async () => {
    const python = [
      'class Kept:',
      '    CATEGORY = "bad\\x00category"',
      '    RETURN_TYPES = ("IMAGE", "half\\ud800")',
      '    FUNCTION = "run"',
      'NODE_CLASS_MAPPINGS = {"Kept": Kept, "Nul\\x00Name": Kept, "Half\\ud800": Kept}',
      'NODE_DISPLAY_NAME_MAPPINGS = {"Kept": "Shown\\udfff"}',
    ].join('\n');
    expect(await extract({ 'p/__init__.py': python })).toStrictEqual({
      status: 'success',
      classes: [{ name: 'Kept', function: 'run' }],
      reason:
        'names with a NUL or an unpaired surrogate, skipped: "Half\\ud800", "Nul\\u0000Name"; ' +
        'attributes with a NUL or an unpaired surrogate, left out: Kept category, Kept returnTypes, Kept description',
    });
  });

  it('takes a mapped class from the module it was imported from, when two modules define one of that name', async () => {
    const twins = {
      'p/__init__.py': [
        'from .first import Twin as FirstTwin',
        'from .second import Twin as SecondTwin',
        'from .nodes import deeper',
        'from . import second',
        'NODE_CLASS_MAPPINGS = {"One": FirstTwin, "Two": SecondTwin, "Deep": deeper.Twin, "Dotted": second.Twin}',
      ].join('\n'),
      'p/first.py': 'class Twin:\n    CATEGORY = "first"\n',
      'p/second.py': 'class Twin:\n    CATEGORY = "second"\n',
      'p/nodes/__init__.py': '',
      'p/nodes/deeper.py': 'from ..first import Twin as Base\nclass Twin(Base):\n    CATEGORY = "deeper"\n',
      'p/own.py': 'class Twin:\n    CATEGORY = "own"\nNODE_CLASS_MAPPINGS = {"Own": Twin}\n',
    };
    expect(await extract(twins)).toStrictEqual({
      status: 'success',
      classes: [
        { name: 'Deep', category: 'deeper' },
        { name: 'Dotted', category: 'second' },
        { name: 'One', category: 'first' },
        { name: 'Own', category: 'own' },
        { name: 'Two', category: 'second' },
      ],
    });
  });

  it('gives the same results to extractions running at once', async () => {
    const path = archive(makeZip({ 'essentials/__init__.py': INIT, 'essentials/nodes/image.py': IMAGE_NODES, 'essentials/nodes/masks.py': MASK_NODES }));
    const [one, two] = await Promise.all([extractNodeClasses(path), extractNodeClasses(path)]);
    expect(one.classes).toHaveLength(3);
    expect(two).toStrictEqual(one);
  });

  it('rejects when the file itself cannot be read', async () => {
    await expect(extractNodeClasses(join(dir, 'absent.zip'))).rejects.toMatchObject({ code: 'ENOENT', syscall: 'open' });
  });
});
