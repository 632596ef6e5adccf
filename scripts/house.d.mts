// Types of scripts/house.mjs, for the test that checks the house.
export declare const FLOORS: [room: string, holds: string][][];
export declare function roomOf(path: string): string;
export declare function readImportGraph(srcDir: string): Map<string, string[]>;
export declare function upwardImports(graph: Map<string, string[]>): string[];
export declare function importCircles(graph: Map<string, string[]>): string[][];
export declare function renderHouse(graph: Map<string, string[]>): string;
export declare function withHouseTable(doc: string, table: string): string;
export declare function houseRows(doc: string): string[][];
