// Adapts the Swagger CLI plugin to ts-jest's transformer interface, so tests
// compile DTOs exactly as `nest build` does (same options as nest-cli.json).
const plugin = require('@nestjs/swagger/plugin');
const { compilerOptions } = require('../../nest-cli.json');

const { options } = compilerOptions.plugins.find((p) => p.name === '@nestjs/swagger');

module.exports.name = 'nestjs-swagger-plugin';
// Bump when the options change, so ts-jest's cache is invalidated.
module.exports.version = 1;
module.exports.factory = (tsCompiler) => plugin.before(options, tsCompiler.program);
