#!/usr/bin/env node
// `node bench/extraction.js` (after `npm run build`): how long extracting node classes from a pack's zip takes
// (CONTRACT §9.3: "a 5 MiB pack with 200 Python files takes under 1 s"), and the longest the event loop
// waits meanwhile. The pack is made here: 200 modules of about 25 KiB of ComfyUI node code (4 node classes each,
// padded with helper functions), one __init__.py mapping all 800 classes, stored uncompressed, so that the zip's
// 5 MiB are all Python to parse. Prints one JSON line; exits 1 when the median misses the target.
const { mkdtempSync, rmSync, statSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { monitorEventLoopDelay, performance } = require('node:perf_hooks');
const { zipSync, strToU8 } = require('fflate');
const { ROOT } = require('./lib');

const FILES = 200;
const CLASSES_PER_FILE = 4;
const FILE_BYTES = 25 * 1024;
const WARM_RUNS = 5;
const TARGET_MS = 1000;

const nodeClass = (name, category) => `
class ${name}:
    """Blends two images through a mask, in one of several modes."""

    @classmethod
    def INPUT_TYPES(cls):
        return {
            "required": {
                "image1": ("IMAGE",),
                "image2": ("IMAGE",),
                "blend_factor": ("FLOAT", {"default": 0.5, "min": 0.0, "max": 1.0, "step": 0.01}),
                "blend_mode": (["normal", "multiply", "screen", "overlay", "soft_light"],),
            },
            "optional": {"mask": ("MASK",)},
        }

    RETURN_TYPES = ("IMAGE", "MASK")
    RETURN_NAMES = ("image", "mask")
    OUTPUT_IS_LIST = (False, False)
    FUNCTION = "blend_images"
    CATEGORY = "${category}"

    def blend_images(self, image1, image2, blend_factor, blend_mode, mask=None):
        image2 = image2.to(image1.device)
        if image1.shape != image2.shape:
            image2 = image2.permute(0, 3, 1, 2)
            image2 = comfy.utils.common_upscale(image2, image1.shape[2], image1.shape[1], upscale_method="bicubic", crop="center")
            image2 = image2.permute(0, 2, 3, 1)
        blended = blend(image1, image2, blend_mode)
        blended = image1 * (1 - blend_factor) + blended * blend_factor
        blended = torch.clamp(blended, 0, 1)
        return (blended, mask if mask is not None else torch.zeros_like(blended[..., 0]))
`;

const helper = (name) => `
def ${name}(images, radius: int = 3, sigma: float = 1.0, *, normalize=True):
    """Gaussian-blurs each image of a batch; kept small for previews."""
    kernel_size = radius * 2 + 1
    x = torch.arange(kernel_size, dtype=torch.float32) - radius
    kernel = torch.exp(-(x ** 2) / (2 * sigma ** 2))
    if normalize:
        kernel = kernel / kernel.sum()
    results = []
    for index, image in enumerate(images):
        try:
            padded = F.pad(image.permute(2, 0, 1).unsqueeze(0), (radius, radius, radius, radius), mode="reflect")
            blurred = F.conv2d(padded, kernel.view(1, 1, 1, -1).repeat(image.shape[-1], 1, 1, 1), groups=image.shape[-1])
            results.append(blurred.squeeze(0).permute(1, 2, 0))
        except RuntimeError as error:
            logger.warning(f"image {index} of {len(images)} not blurred: {error}")
            results.append(image)
    sizes = {tuple(result.shape) for result in results}
    return torch.stack(results) if len(sizes) == 1 else [r for r in results if r is not None]
`;

/** One module of the pack: imports, its node classes, then helpers up to FILE_BYTES. */
function nodeModule(file) {
  const classes = Array.from({ length: CLASSES_PER_FILE }, (_, k) => `Blend${file}x${k}`);
  let text = 'import logging\n\nimport torch\nimport torch.nn.functional as F\n\nimport comfy.utils\n\nlogger = logging.getLogger(__name__)\n';
  text += classes.map((name, k) => nodeClass(name, `image/blend/${file % 10}/${k}`)).join('');
  for (let n = 0; text.length < FILE_BYTES; n++) text += helper(`gaussian_blur_${file}_${n}`);
  return { text, classes };
}

function makePack(dir) {
  const files = {};
  const mapped = [];
  for (let file = 0; file < FILES; file++) {
    const { text, classes } = nodeModule(file);
    files[`blend_pack/nodes/blend_${file}.py`] = [strToU8(text), { level: 0 }];
    mapped.push(...classes.map((name) => ({ name, module: `blend_${file}` })));
  }
  const init = [
    ...mapped.map(({ name, module }) => `from .nodes.${module} import ${name}`),
    '',
    'NODE_CLASS_MAPPINGS = {',
    ...mapped.map(({ name }) => `    "${name}": ${name},`),
    '}',
    'NODE_DISPLAY_NAME_MAPPINGS = {',
    ...mapped.map(({ name }) => `    "${name}": "${name.replace('x', ' blend ')}",`),
    '}',
  ].join('\n');
  files['blend_pack/__init__.py'] = [strToU8(init), { level: 0 }];
  const path = join(dir, 'blend_pack.zip');
  writeFileSync(path, zipSync(files));
  return { path, classes: mapped.length };
}

/** `run()`'s duration, and the longest event-loop delay while it ran (1 ms resolution). */
async function timed(run) {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const start = performance.now();
  const result = await run();
  const ms = performance.now() - start;
  delay.disable();
  return { result, ms, stallMs: delay.max / 1e6 };
}

const round = (value) => Math.round(value * 10) / 10;

async function main() {
  const { extractNodeClasses } = require(join(ROOT, 'dist/src/nodes/comfy-nodes/extraction/extract-node-classes.js'));
  const dir = mkdtempSync(join(tmpdir(), 'extraction-bench-'));
  try {
    const pack = makePack(dir);
    const extract = () => extractNodeClasses(pack.path);
    const first = await timed(extract);
    if (first.result.status !== 'success' || first.result.classes.length !== pack.classes) {
      throw new Error(`expected ${pack.classes} classes, got ${JSON.stringify(first.result).slice(0, 500)}`);
    }
    const warm = [];
    for (let run = 0; run < WARM_RUNS; run++) warm.push(await timed(extract));
    const sorted = warm.map(({ ms }) => ms).sort((a, b) => a - b);
    const medianMs = sorted[Math.floor(sorted.length / 2)];
    console.log(
      JSON.stringify({
        files: FILES + 1,
        bytes: statSync(pack.path).size,
        classes: first.result.classes.length,
        firstMs: round(first.ms),
        medianMs: round(medianMs),
        maxEventLoopStallMs: round(Math.max(...warm.map(({ stallMs }) => stallMs))),
        firstMaxEventLoopStallMs: round(first.stallMs),
      }),
    );
    if (medianMs >= TARGET_MS) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
