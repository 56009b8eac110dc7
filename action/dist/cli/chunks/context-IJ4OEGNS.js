import { createRequire as __karpDriftRequire } from 'node:module';
const require = __karpDriftRequire(import.meta.url);
import{logger}from"./chunk-AZZBMA4M.js";import"./chunk-SBG7ZAHY.js";import"./chunk-A75SA247.js";export{logger};
