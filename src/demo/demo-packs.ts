import { strToU8, zipSync } from 'fflate';
import { CreateNodeDto } from '../nodes/dto/node.dto';
import { CreateNodeVersionDto } from '../nodes/dto/node-version.dto';

/** A node class a demo pack's Python declares. */
interface DemoNodeClass {
  name: string;
  displayName: string;
  category: string;
  returnTypes: string[];
}

/** A pack `npm run cli -- demo` publishes: the node, its versions (with compatibility ranges), the classes its archives declare. */
export interface DemoPack {
  node: CreateNodeDto;
  versions: Array<Omit<CreateNodeVersionDto, 'changelog'>>;
  classes: DemoNodeClass[];
  /** More files of its archives (path in the pack's folder → text). */
  extraFiles?: Record<string, string>;
}

export const DEMO_PUBLISHER = { id: 'demo-publisher', name: 'Demo Publisher' };

/**
 * Four packs, so that every catalog route shows something real: platform
 * lists in the CLI's classifier spelling, app-version ranges that make
 * `comfyui_version` choose between versions, node classes for the
 * missing-node lookup; and one whose archive the checks flag (it runs
 * base64-decoded code), so a review record shows findings at once.
 */
export const DEMO_PACKS: DemoPack[] = [
  {
    node: {
      id: 'demo-upscaler',
      name: 'Demo Upscaler',
      description: 'Upscales images 4x.',
      author: 'Demo User',
      tags: ['image', 'upscale'],
      repository: 'https://example.com/demo/demo-upscaler',
    },
    versions: [
      { version: '1.9.0', supported_app_version: '>=0.3.0', supported_accelerators: ['GPU :: NVIDIA CUDA', 'GPU :: AMD ROCm'] },
      {
        version: '1.10.0',
        supported_app_version: '>=0.3.40',
        supported_os: ['Microsoft :: Windows', 'POSIX :: Linux'],
        supported_accelerators: ['GPU :: NVIDIA CUDA'],
      },
    ],
    classes: [
      { name: 'DemoUpscale4x', displayName: 'Upscale 4x (Demo)', category: 'image/upscaling', returnTypes: ['IMAGE'] },
      { name: 'DemoUpscaleModelLoader', displayName: 'Load Upscale Model (Demo)', category: 'loaders', returnTypes: ['UPSCALE_MODEL'] },
    ],
  },
  {
    node: {
      id: 'demo-depth-maps',
      name: 'Demo Depth Maps',
      description: 'Estimates depth from a single image.',
      author: 'Demo User',
      tags: ['image', 'depth'],
      repository: 'https://example.com/demo/demo-depth-maps',
    },
    versions: [{ version: '0.2.0', supported_app_version: '>=0.3.0', supported_os: ['OS Independent'], supported_accelerators: ['GPU :: NVIDIA CUDA', 'CPU'] }],
    classes: [{ name: 'DemoDepthEstimate', displayName: 'Estimate Depth (Demo)', category: 'image/depth', returnTypes: ['IMAGE', 'MASK'] }],
  },
  {
    node: {
      id: 'demo-metal-blur',
      name: 'Demo Metal Blur',
      description: 'A fast blur for Apple silicon.',
      author: 'Demo User',
      tags: ['image', 'filter'],
      repository: 'https://example.com/demo/demo-metal-blur',
    },
    versions: [{ version: '1.0.0', supported_app_version: '>=0.3.50', supported_os: ['MacOS :: MacOS X'], supported_accelerators: ['GPU :: Apple Metal'] }],
    classes: [{ name: 'DemoMetalBlur', displayName: 'Metal Blur (Demo)', category: 'image/filters', returnTypes: ['IMAGE'] }],
  },
  {
    node: {
      id: 'demo-remote-loader',
      name: 'Demo Remote Loader',
      description: 'Loads its nodes from an encoded blob: the checks hold it for an admin.',
      author: 'Demo User',
      tags: ['utility'],
      repository: 'https://example.com/demo/demo-remote-loader',
    },
    versions: [{ version: '0.1.0' }],
    classes: [{ name: 'DemoRemoteLoad', displayName: 'Remote Load (Demo)', category: 'utils', returnTypes: ['STRING'] }],
    // print("loaded"), base64-encoded: harmless, but nobody can tell without decoding it.
    extraFiles: { 'loader.py': 'import base64\n\nexec(base64.b64decode("cHJpbnQoImxvYWRlZCIp"))\n' },
  },
];

const pythonList = (values: string[]) => `(${values.map((value) => JSON.stringify(value)).join(', ')},)`;

/**
 * A small but real node pack for one version: `nodes.py` defines the
 * classes, `__init__.py` maps them as packs do, so the upload's extraction
 * finds them.
 */
export function demoArchive(pack: DemoPack, version: string): Buffer {
  const folder = pack.node.id;
  const classes = pack.classes
    .map(
      (c) =>
        `class ${c.name}:\n    CATEGORY = ${JSON.stringify(c.category)}\n    FUNCTION = "run"\n    RETURN_TYPES = ${pythonList(c.returnTypes)}\n\n` +
        `    @classmethod\n    def INPUT_TYPES(cls):\n        return {"required": {"image": ("IMAGE",)}}\n\n    def run(self, image):\n        return (image,)\n`,
    )
    .join('\n\n');
  const mappings = pack.classes.map((c) => `    ${JSON.stringify(c.name)}: ${c.name},`).join('\n');
  const displayNames = pack.classes.map((c) => `    ${JSON.stringify(c.name)}: ${JSON.stringify(c.displayName)},`).join('\n');
  // A fixed timestamp, so every run builds the same bytes (one stored file per version).
  const mtime = new Date('2026-01-01T00:00:00Z');
  const file = (text: string): [Uint8Array, { mtime: Date }] => [strToU8(text), { mtime }];
  return Buffer.from(
    zipSync(
      {
        [`${folder}/__init__.py`]: file(
          `# ${pack.node.name} ${version}\nfrom .nodes import ${pack.classes.map((c) => c.name).join(', ')}\n\n` +
            `NODE_CLASS_MAPPINGS = {\n${mappings}\n}\n\nNODE_DISPLAY_NAME_MAPPINGS = {\n${displayNames}\n}\n`,
        ),
        [`${folder}/nodes.py`]: file(`${classes}\n`),
        [`${folder}/README.md`]: file(`${pack.node.name} ${version}: seeded by npm run cli -- demo.\n`),
        ...Object.fromEntries(Object.entries(pack.extraFiles ?? {}).map(([path, text]) => [`${folder}/${path}`, file(text)])),
      },
      { level: 6 },
    ),
  );
}
