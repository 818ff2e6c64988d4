BxJ@£øâB‚ºCýwD.ì
DÿÏØCNDRÑÍCQ=<Ã¼Âæ˜¯CâåøCN›ÓCt8<Cï±ÃUƒ…CYéD