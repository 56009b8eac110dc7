import { createRequire as __karpDriftRequire } from 'node:module';
const require = __karpDriftRequire(import.meta.url);
import{UsageError}from"./chunk-XD23J4YT.js";import"./chunk-2SE36FIW.js";async function demo(){throw new UsageError("karp-drift demo is not part of the GitHub Action build",{hint:"install karp-drift from npm to run the demo"})}export{demo};
