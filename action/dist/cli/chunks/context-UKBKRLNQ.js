import { createRequire as __karpDriftRequire } from 'node:module';
const require = __karpDriftRequire(import.meta.url);
import{logger}from"./chunk-7O36VXAD.js";import"./chunk-UFUJKX4E.js";import"./chunk-A75SA247.js";export{logger};
