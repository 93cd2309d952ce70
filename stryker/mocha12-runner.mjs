// Stryker's mocha runner (9.5.1) with mocha 12. The runner requires three mocha CLI modules by their pre-12 names
// (mocha/lib/cli/run-helpers, options and collect-files); mocha 12 ships them as .cjs files. This plugin maps
// exactly those three requests to the .cjs files, then hands Stryker the runner's own plugins unchanged.
// package.json's "overrides" lets the runner's peer range (mocha < 12) accept the project's mocha.
import Module from 'node:module';

const OLD_NAMES = /[\\/]mocha[\\/]lib[\\/]cli[\\/](run-helpers|options|collect-files)$/;
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return resolve.call(this, OLD_NAMES.test(request) ? `${request}.cjs` : request, ...rest);
};

const runner = await import('@stryker-mutator/mocha-runner');
export const strykerPlugins = runner.strykerPlugins;
export const strykerValidationSchema = runner.strykerValidationSchema;
