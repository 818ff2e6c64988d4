Bv_finalJa?ˆ?¸=Ü¿p¾
@