#!/usr/bin/env node
// Prints Jest's JSON report as one plain closing line: "<label>: N passed, N failed".
const [file, label] = process.argv.slice(2);
const report = require(require('node:path').resolve(file));
console.log(`${label}: ${report.numPassedTests} passed, ${report.numFailedTests} failed`);
if (report.numTotalTests === 0) {
  console.error(`${label}: no test ran`);
  process.exit(1);
}
