"""Reading text: claims found in questions' and articles' sentences, tables and lists, checked against the audit's rules."""
