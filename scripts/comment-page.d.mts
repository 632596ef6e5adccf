export declare const COMMENT_WIDTH: number;
export declare function markdownToHtml(markdown: string): string;
export declare function commentPage(markdown: string): string;
