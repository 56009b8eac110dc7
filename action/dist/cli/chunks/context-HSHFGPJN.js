import { createRequire as __karpDriftRequire } from 'node:module';
const require = __karpDriftRequire(import.meta.url);
import{logger}from"./chunk-NODKX7DB.js";import"./chunk-O37UTTP2.js";import"./chunk-A75SA247.js";export{logger};
